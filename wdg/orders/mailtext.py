"""From a mail to the text of its order sheets, decoded as a mail client would.

* ``email`` with ``policy.default``; every header read through
  :func:`header_text`, which never raises and never returns CR, LF or other
  control characters (a hostile header is ``None``, not an exception);
* the sheet is looked for in every ``text/plain`` part and in every attachment
  whose file name ends in ``.txt`` (``application/octet-stream`` included);
* bytes are decoded by their BOM (UTF-8, UTF-16), else by the declared charset
  when it decodes cleanly (a Latin-1 declaration over valid UTF-8 multibyte
  text is a lie: UTF-8 wins), else by detection (``charset-normalizer``), else
  UTF-8/Windows-1252/Latin-1;
* ``format=flowed`` text is un-wrapped (RFC 3676, with ``DelSp``).
"""

from __future__ import annotations

import re
from email.message import EmailMessage, Message
from email.utils import getaddresses, parsedate_to_datetime
from datetime import datetime

from wdg.orders.parser import decode
from wdg.textpolicy import header_value

_CHARSET_OK = re.compile(r"[A-Za-z0-9._:+-]{1,40}")
_LATIN = {"iso-8859-1", "iso8859-1", "latin-1", "latin1", "l1", "iso-8859-15", "iso8859-15",
          "latin-9", "windows-1252", "cp1252", "us-ascii", "ascii", "iso-8859-2", "cp850"}
_TEXT_NAME = re.compile(r"(?i).*\.(txt|text|asc)$")
_ADDR = re.compile(r"[^\s<>()\[\]\\,;:\"@]{1,64}@[A-Za-z0-9.-]{1,190}")
_MSGID = re.compile(r"<[!-;=?-~]{1,250}>")


def header_text(msg: Message, name: str) -> str | None:
    """A header's decoded text; ``None`` if absent, unreadable or holding
    control characters (CR, LF, NUL, ESC, U+2028, bidi ...)."""
    try:
        value = msg.get(name)
        text = None if value is None else str(value)
    except Exception:  # noqa: BLE001 - a hostile header must never stop the import
        text = None
        try:
            for key, raw in msg.raw_items():
                if key.lower() == name.lower():
                    text = str(raw)
                    break
        except Exception:  # noqa: BLE001 - hostile mail, errors undocumented
            return None
        if text is not None and ("=?" in text):
            return None  # an encoded-word the library refused to decode: unusable
    if text is None:
        return None
    return header_value(" ".join(text.split()) if "\n" not in text.strip() and "\r" not in
                        text.strip() else text)


def sender_address(msg: Message) -> str | None:
    """The plain address of ``From:`` (``name@host``), or ``None`` if there is
    none or it is unusable (control characters, CR/LF after decoding, no @)."""
    text = header_text(msg, "From")
    if not text:
        return None
    try:
        pairs = getaddresses([text])
    except Exception:  # noqa: BLE001 - hostile mail, errors undocumented
        return None
    for _, addr in pairs:
        addr = addr.strip()
        if addr and _ADDR.fullmatch(addr) and header_value(addr) == addr:
            return addr
    return None


def message_id(msg: Message) -> str | None:
    """``<id@host>`` if the Message-ID is usable in an ``In-Reply-To``."""
    text = header_text(msg, "Message-ID")
    if not text:
        return None
    text = text.strip()
    return text if _MSGID.fullmatch(text) else None


def header_date(msg: Message, name: str = "Date") -> datetime | None:
    """A header's date (aware), or ``None``."""
    text = header_text(msg, name)
    if not text:
        return None
    return parse_date(text)


def parse_date(text: str) -> datetime | None:
    """An RFC 5322 date (aware), or ``None`` for anything unusable (year 0 ...)."""
    try:
        d = parsedate_to_datetime(text.strip())
    except Exception:  # noqa: BLE001 - hostile mail, errors undocumented
        return None
    if d is None or d.year < 1971 or d.year > 9000:
        return None
    if d.tzinfo is None:
        from datetime import timezone

        d = d.replace(tzinfo=timezone.utc)
    return d


_FETCHER = re.compile(
    r"\bwith\s+(?:E?SMTPS?A?\s+)?\(?(?:POP3S?|APOP|KPOP|RPOP|SDPS|IMAP4?S?|IMAP4rev1|ETRN|ODMR)\b"
    r"|\((?:fetchmail|getmail)\b|\bgetmail\d*\b|\bfetchmail-\d",
    re.IGNORECASE)


def fetcher_header(text: str) -> bool:
    """Whether a ``Received:`` header was written by a program that fetched the
    mail out of a mailbox (getmail, fetchmail and their like: ``with POP3``,
    ``with IMAP``, ``(fetchmail-6.4…)``, ``getmail6``), not by a server receiving it."""
    return bool(_FETCHER.search(text))


def received_date(msg: Message) -> datetime | None:
    """The date of the topmost ``Received:`` header written by a server that
    received the mail (its clock, after the header's last ``;``). Headers a
    local fetcher (getmail, fetchmail) put on top when it copied the mail out of
    the game master's mailbox are skipped — only those at the very top: below the
    first server's header, anything is the sender's text and proves nothing."""
    try:
        values = msg.get_all("Received") or []
    except Exception:  # noqa: BLE001 - hostile mail, errors undocumented
        return None
    for raw in values[:20]:
        try:
            text = str(raw)
        except Exception:  # noqa: BLE001 - hostile mail, errors undocumented
            return None
        if fetcher_header(text):
            continue
        if ";" in text:
            return parse_date(text.rsplit(";", 1)[1])
        return None
    return None


def decode_bytes(data: bytes, charset: str | None) -> tuple[str, str]:
    """Text of a part and how it was decoded (``"utf-8"``, ``"bom utf-16"``,
    ``"detected cp1252"``...)."""
    if data.startswith(b"\xef\xbb\xbf"):
        return data[3:].decode("utf-8", errors="replace"), "bom utf-8"
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        return data.decode("utf-16", errors="replace"), "bom utf-16"
    cs = (charset or "").strip().strip('"').lower()
    if cs and _CHARSET_OK.fullmatch(cs):
        if cs in _LATIN and not data.isascii():
            try:
                return data.decode("utf-8"), "utf-8 (declared " + cs + ")"
            except UnicodeDecodeError:
                pass
        try:
            return data.decode(cs), cs
        except (LookupError, UnicodeDecodeError, ValueError):
            pass
    if data.isascii():
        return data.decode("ascii"), "ascii"
    try:
        return data.decode("utf-8"), "utf-8"
    except UnicodeDecodeError:
        pass
    if b"\x00" in data[:200] and len(data) % 2 == 0:  # UTF-16 without BOM
        for enc in ("utf-16-le", "utf-16-be"):
            try:
                text = data.decode(enc)
                if text.isprintable() or "\n" in text:
                    return text, "detected " + enc
            except UnicodeDecodeError:
                continue
    try:
        from charset_normalizer import from_bytes

        best = from_bytes(data[:200_000]).best()
        if best is not None and best.encoding:
            return data.decode(best.encoding, errors="replace"), "detected " + best.encoding
    except Exception:  # noqa: BLE001 - detection is a help, never a reason to fail
        pass
    return decode(data), "cp1252/latin-1"


def unflow(text: str, delsp: bool) -> str:
    """RFC 3676 ``format=flowed``: soft line breaks (a line ending in a blank)
    joined, space-stuffing removed; quoted lines join only with the same depth."""
    out: list[str] = []
    buf = ""
    depth_buf = -1
    for line in text.split("\n"):
        line = line.rstrip("\r")
        depth = len(line) - len(line.lstrip(">"))
        body = line[depth:]
        if body.startswith(" "):
            body = body[1:]
        if buf and depth != depth_buf:
            out.append(">" * depth_buf + buf)
            buf = ""
        flowed = body.endswith(" ") and body != "-- "
        if flowed:
            buf += body[:-1] if delsp else body
            depth_buf = depth
        else:
            out.append(">" * depth + buf + body)
            buf, depth_buf = "", -1
    if buf:
        out.append(">" * depth_buf + buf)
    return "\n".join(out)


def _param(part: Message, name: str) -> str:
    try:
        value = part.get_param(name)
        return str(value).lower() if value else ""
    except Exception:  # noqa: BLE001 - hostile mail, errors undocumented
        return ""


def part_texts(msg: EmailMessage) -> tuple[list[str], bool]:
    """Every candidate text of a mail (``text/plain`` parts and ``.txt``
    attachments, in order) and whether it has an HTML part."""
    texts: list[str] = []
    html = False
    for part in msg.walk():
        try:
            if part.is_multipart():
                continue
            ctype = part.get_content_type()
        except Exception:  # noqa: BLE001 - hostile mail, errors undocumented
            continue
        try:
            filename = part.get_filename() or ""
        except Exception:  # noqa: BLE001 - hostile mail, errors undocumented
            filename = ""
        is_text_file = bool(filename) and _TEXT_NAME.fullmatch(str(filename)) is not None
        if ctype == "text/html" and not is_text_file:
            html = True
            continue
        if ctype != "text/plain" and not is_text_file:
            continue
        try:
            payload = part.get_payload(decode=True) or b""
        except Exception:  # noqa: BLE001 - hostile mail, errors undocumented
            payload = b""
        if not isinstance(payload, bytes):
            payload = str(payload).encode("utf-8", errors="replace")
        try:
            charset = part.get_content_charset()
        except Exception:  # noqa: BLE001 - hostile mail, errors undocumented
            charset = None
        text, _ = decode_bytes(payload, charset)
        text = text.replace("\r\n", "\n").replace("\r", "\n")
        if _param(part, "format") == "flowed":
            text = unflow(text, _param(part, "delsp") == "yes")
        texts.append(text)
    return texts, html
