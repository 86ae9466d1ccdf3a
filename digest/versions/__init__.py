"""Learning versions: composing documents (the draft, the chain of versions, why one waits for a
person), the replay of recent failures before publishing, a person's decisions on them, and the
triggers that propose them (threshold, weekly sweep)."""
