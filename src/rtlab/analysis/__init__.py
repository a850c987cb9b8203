"""Edges → intervals → statistics."""
