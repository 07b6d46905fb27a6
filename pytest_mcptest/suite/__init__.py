"""Suites: YAML files read with their lines, validated and turned into model objects."""
