"""What every PDF the project renders with WeasyPrint shares: a fetcher that reads only the
files of one folder, so rendering never touches the network or the rest of the file system."""

from __future__ import annotations

import mimetypes
from pathlib import Path
from urllib.parse import unquote, urlsplit

from weasyprint.urls import URLFetcher, URLFetcherResponse, path2url


class ResourceRefused(ValueError):
    """A document asked for a resource outside its folder, or not by a `file:` URL."""


class FolderURLFetcher(URLFetcher):
    """Serves `file:` URLs of files inside `root`; refuses every other URL."""

    def __init__(self, root: Path, **kwargs) -> None:
        super().__init__(allowed_protocols=("file",), **kwargs)
        self.root = Path(root).resolve()

    def path_for(self, url: str) -> Path:
        """The file inside `root` that `url` names; raises ResourceRefused otherwise."""
        parts = urlsplit(url)
        if parts.scheme.lower() != "file" or parts.netloc not in ("", "localhost"):
            raise ResourceRefused(f"refused to fetch {url!r}: only local files are served")
        path = Path(unquote(parts.path)).resolve()
        if not path.is_relative_to(self.root) or not path.is_file():
            raise ResourceRefused(f"refused to fetch {url!r}: not a file of {self.root}")
        return path

    def fetch(self, url: str, headers: dict | None = None) -> URLFetcherResponse:
        path = self.path_for(url)
        content_type = mimetypes.guess_type(path.name)[0] or "application/octet-stream"
        return URLFetcherResponse(
            path2url(str(path)), path.read_bytes(), headers={"Content-Type": content_type}
        )
