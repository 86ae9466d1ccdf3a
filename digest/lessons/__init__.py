"""Lessons: the store, the one transition function, neighbour search, owner operations,
statistics and measured effect."""
