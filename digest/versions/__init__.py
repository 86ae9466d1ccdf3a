"""Learning versions: composing documents, a person's decisions on them, and the triggers that
propose them (threshold, weekly sweep)."""
