"""fabricgen's inventory seen by other tools: the JSON Schema editors validate with, and exports to
containerlab, Nornir and Ansible. Pure functions from the inventory models or a resolved Fabric to data."""
