"""Copies the offline checker's JavaScript from node_modules (package.json) into static/vendor,
where the portal serves it and git keeps it: Workbox's service-worker loader and the modules
the checker's worker uses, and cborg with every module its entry point imports; and Swagger UI's
bundle and style sheet, for the API's documentation page (templates/api/docs.html).

    npm install --no-audit --no-fund && python -m scripts.vendor_checker

Run again after changing their versions in package.json; commit what it writes.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MODULES = ROOT / "node_modules"
VENDOR = ROOT / "static" / "vendor"
WORKBOX_MODULES = ("workbox-core", "workbox-routing", "workbox-strategies", "workbox-precaching")
SOURCE_MAP = re.compile(r"^//# sourceMappingURL=.*$\n?", re.M)
CSS_SOURCE_MAP = re.compile(r"/\*# sourceMappingURL=.*?\*/\n?")
RELATIVE_IMPORT = re.compile(
    r"""^(?:import|export)\b[^'"]*?from\s+['"](\.{1,2}/[^'"]+)['"]""", re.M
)


def version(package: str) -> str:
    return json.loads((MODULES / package / "package.json").read_text())["version"]


def copy_workbox() -> list[Path]:
    target = VENDOR / "workbox"
    shutil.rmtree(target, ignore_errors=True)
    target.mkdir(parents=True)
    sources = [MODULES / "workbox-sw" / "build" / "workbox-sw.js"]
    sources += [MODULES / name / "build" / f"{name}.prod.js" for name in WORKBOX_MODULES]
    for source in sources:
        # Without their source maps, which are not copied: collectstatic's hashed names
        # would look for them.
        text = SOURCE_MAP.sub("", source.read_text(encoding="utf-8"))
        (target / source.name).write_text(text, encoding="utf-8")
    shutil.copyfile(MODULES / "workbox-sw" / "LICENSE", target / "LICENSE")
    return [target / source.name for source in sources]


def module_graph(entry: Path) -> list[Path]:
    """`entry` and every module it imports, by relative paths, however deep."""
    found, waiting = [], [entry.resolve()]
    while waiting:
        module = waiting.pop()
        if module in found:
            continue
        found.append(module)
        for imported in RELATIVE_IMPORT.findall(module.read_text(encoding="utf-8")):
            waiting.append((module.parent / imported).resolve())
    return sorted(found)


def copy_cborg() -> list[Path]:
    package = MODULES / "cborg"
    target = VENDOR / "cborg"
    shutil.rmtree(target, ignore_errors=True)
    copied = []
    for module in [*module_graph(package / "cborg.js"), package / "LICENSE"]:
        destination = target / module.relative_to(package)
        destination.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(module, destination)
        copied.append(destination)
    return copied


def copy_swagger_ui() -> list[Path]:
    package = MODULES / "swagger-ui-dist"
    target = VENDOR / "swagger-ui"
    shutil.rmtree(target, ignore_errors=True)
    target.mkdir(parents=True)
    copied = []
    for name in ("swagger-ui-bundle.js", "swagger-ui.css"):
        text = SOURCE_MAP.sub("", (package / name).read_text(encoding="utf-8"))
        text = CSS_SOURCE_MAP.sub("", text)
        (target / name).write_text(text, encoding="utf-8")
        copied.append(target / name)
    shutil.copyfile(package / "LICENSE", target / "LICENSE")
    return copied


def main() -> None:
    copied = copy_workbox() + copy_cborg() + copy_swagger_ui()
    (VENDOR / "VERSIONS").write_text(
        f"workbox {version('workbox-sw')}\ncborg {version('cborg')}\n"
        f"swagger-ui-dist {version('swagger-ui-dist')}\n"
        "Copied from node_modules by scripts/vendor_checker.py; do not edit.\n"
    )
    for path in copied:
        print(path.relative_to(ROOT))


if __name__ == "__main__":
    main()
