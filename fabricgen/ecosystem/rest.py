"""A small JSON REST client for Nautobot's and NetBox's APIs (the I/O edge of ``import``/``export``).

Plain ``urllib``: both APIs are the same shape for what fabricgen needs (token header, paginated lists
``{"count", "next", "previous", "results"}``, JSON bodies), so one client serves both, with no dependency whose
pins would have to agree with fabricgen's. The token is sent in a header and never appears in a message.
"""

from __future__ import annotations

import json
import urllib.error
import urllib.parse
import urllib.request
from typing import Any

MAX_PAGES = 10_000


class RestError(RuntimeError):
    """The server refused or could not be reached; one line, without the token."""


class Client:
    def __init__(self, url: str, token: str, timeout: float = 60.0) -> None:
        parsed = urllib.parse.urlsplit(url)
        if parsed.scheme not in ("http", "https") or not parsed.netloc:
            raise RestError(f"{url!r} is not an http(s) URL")
        self.base = url.rstrip("/") + "/api/"
        self._headers = {"Authorization": f"Token {token}", "Accept": "application/json",
                         "Content-Type": "application/json"}
        self.timeout = timeout

    def _call(self, method: str, url: str, body: Any = None) -> Any:
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(url, data=data, method=method, headers=self._headers)
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as response:
                return json.loads(response.read() or b"null")
        except urllib.error.HTTPError as exc:
            detail = exc.read()[:500].decode("utf-8", "replace").replace("\n", " ")
            raise RestError(f"{method} {url.split('?')[0]}: HTTP {exc.code}: {detail}") from None
        except (OSError, ValueError) as exc:
            raise RestError(f"{method} {url.split('?')[0]}: {exc}") from None

    def list(self, endpoint: str, params: dict[str, Any] | None = None) -> list[dict[str, Any]]:
        """Every object of a list endpoint, following ``next`` links."""
        query = urllib.parse.urlencode({"limit": 1000, **(params or {})})
        url: str | None = f"{self.base}{endpoint}?{query}"
        out: list[dict[str, Any]] = []
        for _ in range(MAX_PAGES):
            if url is None:
                return out
            page = self._call("GET", url)
            if not isinstance(page, dict) or not isinstance(page.get("results"), list):
                raise RestError(f"GET {endpoint}: not a paginated list")
            out.extend(r for r in page["results"] if isinstance(r, dict))
            url = page.get("next")
            if url is not None and not self._same_server(str(url)):
                raise RestError(f"GET {endpoint}: next page {url!r} is on another server")
        raise RestError(f"GET {endpoint}: more than {MAX_PAGES} pages")

    def _same_server(self, url: str) -> bool:
        """Whether ``url`` is on this client's server: the same scheme and network location, compared whole (a
        link that only starts with it — ``http://sot:80`` → ``http://sot:8000``, ``https://sot`` →
        ``https://sot.elsewhere`` — would receive the token).

        >>> c = Client("http://127.0.0.1:4100", "t")
        >>> c._same_server("http://127.0.0.1:4100/api/x/?offset=2"), c._same_server("http://127.0.0.1:41003/api/x/")
        (True, False)
        """
        mine, theirs = urllib.parse.urlsplit(self.base), urllib.parse.urlsplit(url)
        return (theirs.scheme, theirs.netloc.lower()) == (mine.scheme, mine.netloc.lower())

    def create(self, endpoint: str, body: dict[str, Any]) -> dict[str, Any]:
        made = self._call("POST", f"{self.base}{endpoint}", body)
        if not isinstance(made, dict):
            raise RestError(f"POST {endpoint}: unexpected answer")
        return made
