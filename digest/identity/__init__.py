"""Identity: what makes two lessons the same lesson (fingerprints, semantic vectors, the
neighbour index). ``embedding`` is the seam to the vector models."""
