"""What the portal relies on in its libraries beyond their documented interfaces, checked on the
versions installed. Each module names the portal's module that leans on the library, and why no
public way serves. A failure here after an upgrade means that module must change before the
library's pin in pyproject.toml is raised; while they pass, the pins can be ranges."""
