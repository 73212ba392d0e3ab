"""Micro-op semantics and verifiers, one module per family."""
