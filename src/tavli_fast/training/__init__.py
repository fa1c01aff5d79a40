"""Training the nets (TD self-play, supervised fits) and their recipes."""
