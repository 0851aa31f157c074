"""Inventory stage: YAML as the user wrote it, validated field by field, with source positions."""
