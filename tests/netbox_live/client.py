"""Talking to the running NetBox as a person and as a script would.

The web side logs in through the login form (session and CSRF cookies, the form's
hidden token) and pastes each file into the object list's bulk-import form, exactly
what a person does in the browser; success is NetBox's redirect to the list carrying
``modified_by_request``.  The REST side reads objects back with the API token.
Standard library only, so the harness needs nothing the project does not already have.
"""

from __future__ import annotations

import html
import http.cookiejar
import json
import re
import secrets
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path
from typing import Any

_TOKEN_FIELD = re.compile(r'name="csrfmiddlewaretoken" value="([^"]+)"')
_ERRORS = re.compile(r'class="[^"]*(?:toast-body|errorlist|invalid-feedback)[^"]*"[^>]*>(.*?)</',
                     re.S)  # fmt: skip


class ImportRefused(Exception):
    """NetBox did not take a file; the message holds what its page said."""


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, req, fp, code, msg, headers, newurl):  # noqa: ANN001
        return None


class NetBoxClient:
    def __init__(self, url: str, token: str, timeout: float = 1800.0):
        self.url = url.rstrip("/")
        self.token = token
        self.timeout = timeout
        self.jar = http.cookiejar.CookieJar()
        self.web = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(self.jar),
                                               _NoRedirect())  # fmt: skip

    def _send(self, path: str, data: dict[str, str] | None = None, multipart: bool = False):
        body = urllib.parse.urlencode(data).encode() if data is not None else None
        request = urllib.request.Request(self.url + path, data=body)
        if multipart and data is not None:
            # as NetBox's import page posts (enctype="multipart/form-data"): the pasted
            # text counts byte for byte against the upload limit
            boundary = "----workbench" + secrets.token_hex(12)
            parts = [f'--{boundary}\r\nContent-Disposition: form-data; name="{k}"\r\n\r\n'
                     f"{v}\r\n" for k, v in data.items()]  # fmt: skip
            body = ("".join(parts) + f"--{boundary}--\r\n").encode()
            request = urllib.request.Request(self.url + path, data=body)
            request.add_header("Content-Type", f"multipart/form-data; boundary={boundary}")
        request.add_header("Referer", self.url + path)
        try:
            return self.web.open(request, timeout=self.timeout)
        except urllib.error.HTTPError as exc:  # 3xx arrive here with redirects off
            return exc

    def _csrf(self, path: str) -> str:
        page = self._send(path)
        text = page.read().decode("utf-8", "replace")
        found = _TOKEN_FIELD.search(text)
        if page.status != 200 or not found:
            raise ImportRefused(f"GET {path}: status {page.status}, no form token")
        return found.group(1)

    def login(self, username: str, password: str) -> None:
        token = self._csrf("/login/")
        reply = self._send("/login/", {"csrfmiddlewaretoken": token, "username": username,
                                       "password": password, "next": "/"})  # fmt: skip
        if reply.status not in (302, 303):
            raise ImportRefused(f"login refused (status {reply.status})")

    def import_file(self, app_model: str, text: str, fmt: str) -> str:
        """Paste ``text`` into ``/<app>/<model>/import/``; the redirect URL on success."""
        path = f"/{app_model}/import/"
        token = self._csrf(path)
        reply = self._send(path, {"csrfmiddlewaretoken": token, "import_method": "direct",
                                  "data": text, "format": fmt, "csv_delimiter": ","},
                           multipart=True)  # fmt: skip
        location = reply.headers.get("Location", "")
        if reply.status in (302, 303) and "modified_by_request" in location:
            return location
        page = reply.read().decode("utf-8", "replace")
        errors = [html.unescape(re.sub(r"<[^>]+>", " ", e)).split() for e in _ERRORS.findall(page)]
        said = " | ".join(" ".join(e) for e in errors if e)[:1500]
        raise ImportRefused(f"{path}: status {reply.status}: {said or page[:500]}")

    def api(self, path: str, **params: Any) -> dict[str, Any]:
        query = urllib.parse.urlencode(params, doseq=True)
        request = urllib.request.Request(f"{self.url}/api/{path}?{query}")
        request.add_header("Accept", "application/json")
        if self.token:
            request.add_header("Authorization", f"Token {self.token}")
            try:
                with urllib.request.urlopen(request, timeout=120) as reply:
                    return json.loads(reply.read())
            except urllib.error.HTTPError as exc:
                if exc.code != 403:
                    raise
                # NetBox 4.7 may refuse legacy v1 tokens: fall back to the session
                # the login made (REST's SessionAuthentication), once for all.
                self.token = ""
                request.remove_header("Authorization")
        reply = self.web.open(request, timeout=120)
        return json.loads(reply.read())

    def export(self, list_path: str) -> tuple[str, bytes]:
        """NetBox's own "Export ▸ All data" of a list (``dcim/devices``): the file name
        its download carries (``netbox_devices.csv``) and the bytes."""
        reply = self._send(f"/{list_path}/?export=")
        if reply.status != 200:
            raise ImportRefused(f"GET /{list_path}/?export=: status {reply.status}")
        found = re.search(r'filename="([^"]+)"', reply.headers.get("Content-Disposition", ""))
        if not found:
            raise ImportRefused(f"GET /{list_path}/?export=: no file name")
        return found.group(1), reply.read()

    def count(self, path: str, **params: Any) -> int:
        return int(self.api(path, limit=1, **params)["count"])

    def all(self, path: str, **params: Any) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        offset = 0
        while True:
            page = self.api(path, limit=1000, offset=offset, **params)
            out.extend(page["results"])
            offset += 1000
            if not page.get("next"):
                return out


def import_folder(client: NetBoxClient, folder: Path, log=print) -> list[tuple[str, float]]:
    """Import every manifest file in order; (file, seconds) per file."""
    import time

    done = []
    for entry in json.loads((folder / "manifest.json").read_text()):
        text = (folder / entry["file"]).read_text(encoding="utf-8")
        fmt = "yaml" if entry["file"].endswith(".yaml") else "csv"
        if text.count("\n") <= 1 and fmt == "csv":
            log(f"{entry['file']}: header only, nothing to import")
            continue
        start = time.monotonic()
        client.import_file(entry["path"], text, fmt)
        seconds = time.monotonic() - start
        done.append((entry["file"], seconds))
        log(f"{entry['file']} -> /{entry['path']}/import/: {seconds:.1f} s")
    return done
