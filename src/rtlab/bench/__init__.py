"""Experiments: workload output protocol, builds of C targets, environment fingerprint."""
