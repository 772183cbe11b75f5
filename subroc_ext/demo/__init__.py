"""Bundled and offline datasets and quick models for demos, tests and experiments."""
