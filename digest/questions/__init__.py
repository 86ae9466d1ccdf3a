"""The agent asks its owner (issue 28): ``ask`` on the agent's side (``digest.questions.ask``),
the owner's queue on the other (``digest.questions.queue``)."""
