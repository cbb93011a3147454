"""Kingdom passwords: drawn from the operating system's CSPRNG, stored only as
salted scrypt hashes, compared in constant time (docs/security.md).

Hash format: ``scrypt$<N>$<r>$<p>$<salt hex>$<hash hex>`` — the cost travels
with the hash, so a hash keeps verifying when :data:`SCRYPT_N` changes. The
old format ``pbkdf2_sha256$<iterations>$<salt hex>$<hash hex>`` (wdg before
issue #30) still verifies; :func:`needs_upgrade` says so, and the month run
(``wdg turn run``) and ``wdg orders import`` replace such a hash after its
first successful check by :func:`upgraded_hash` — through the ordinary atomic
save of the segment.

Generated passwords (:func:`generate_password`) never come from the
segment's seed: five two-syllable words, 63.2 bits from :mod:`secrets`.
Only the *known* passwords of demos, benchmarks and the lab (public by
definition) get a deterministic salt and a low cost
(:func:`known_password_hash`), so that those segments stay byte-identical
for a seed.
"""

from __future__ import annotations

import hashlib
import hmac
import math
import secrets
import unicodedata

import numpy as np

from wdg.world.state import Segment

SCRYPT_N = 2 ** 15
"""scrypt CPU/memory cost: 2^15 with r = 8 needs 32 MiB and about 0.1 s per
check on one core of the reference machine (docs/security.md, measured)."""
SCRYPT_R = 8
SCRYPT_P = 1
KNOWN_N = 2 ** 10
"""Cost of the hashes of *known* passwords (demo ``NAME-<k>``, stress, lab):
they guard nothing, so they need not cost a tenth of a second each."""
MAXMEM = 128 * 2 ** 20
"""Memory scrypt may use for one check (a stored hash asking more is refused)."""
MAX_N = 2 ** 20
SCHEME = "scrypt"
"""The password hash scheme, the first field of a stored hash (a segment's
format depends on it: wdg.store.shapes)."""
_LEGACY = "pbkdf2_sha256"
_DKLEN = 32

ONSETS = ("b", "d", "f", "g", "h", "k", "l", "m", "n", "p", "r", "s", "t", "w", "z", "sch")
VOWELS = ("a", "e", "i", "o", "u")
SYLLABLES = tuple(c + v for c in ONSETS for v in VOWELS)
"""80 German-sounding syllables (``ba`` … ``schu``): every syllable is one
onset and one vowel, so a password reads back unambiguously."""
WORDS = 5
"""Words of a generated password, two syllables each (``kali-motu-resa-beni-fuwo``)."""
PASSWORD_BITS = 2 * WORDS * math.log2(len(SYLLABLES))
"""Entropy of a generated password: 10 syllables of 80 = 63.2 bits."""


def generate_password() -> str:
    """A new random password like ``kali-motu-resa-beni-fuwo`` (63.2 bits from
    the operating system's CSPRNG, :mod:`secrets`; never from a seed)."""
    return "-".join(secrets.choice(SYLLABLES) + secrets.choice(SYLLABLES)
                    for _ in range(WORDS))


def _scrypt(password: str, salt: bytes, n: int, r: int, p: int) -> bytes:
    return hashlib.scrypt(password.encode("utf-8"), salt=salt, n=n, r=r, p=p,
                          maxmem=MAXMEM, dklen=_DKLEN)


def _format(password: str, salt: bytes, n: int, r: int = SCRYPT_R, p: int = SCRYPT_P) -> str:
    digest = _scrypt(unicodedata.normalize("NFC", password), salt, n, r, p)
    return f"{SCHEME}${n}${r}${p}${salt.hex()}${digest.hex()}"


def hash_password(password: str, rng: np.random.Generator | None = None) -> str:
    """A salted scrypt hash of ``password`` (in Unicode NFC) at the full cost.
    The salt comes from :func:`secrets.token_bytes`; ``rng`` (tests that need
    the same bytes twice) draws it from that generator instead."""
    salt = bytes(rng.integers(0, 256, size=16, dtype=np.uint8)) if rng is not None \
        else secrets.token_bytes(16)
    return _format(password, salt, SCRYPT_N)


def known_password_hash(password: str, salt: bytes) -> str:
    """The hash of a password everybody knows (demo, stress, lab): scrypt at
    :data:`KNOWN_N` with the caller's salt, deterministic."""
    return _format(password, salt, KNOWN_N)


_CHECKED_KEY = secrets.token_bytes(32)
_checked: dict[bytes, bool] = {}
CHECKED_MAX = 4096
"""Answers of :func:`verify_password` remembered by one process (a player who
mails three corrections, an import of a month's mailbox, a month run after its
import in one ``wdg mail run``: each pair of password and hash costs one scrypt
check, not one per sheet). Keyed by an HMAC under a random key made when the
process starts, so the memory holds neither the password nor a digest that
could be searched faster than scrypt; gone when the process ends."""


def verify_password(password: str, stored: str) -> bool:
    """True if ``password`` matches ``stored`` (constant-time comparison);
    False for an empty or malformed stored hash. The password is compared in
    Unicode NFC (as typed on any system) and as given. The same pair checked
    again in this process is answered from memory (:data:`CHECKED_MAX`)."""
    tag = hmac.new(_CHECKED_KEY, stored.encode("utf-8", "surrogatepass") + b"\0"
                   + password.encode("utf-8", "surrogatepass"), hashlib.sha256).digest()
    known = _checked.get(tag)
    if known is not None:
        return known
    nfc = unicodedata.normalize("NFC", password)
    ok = _verify(nfc, stored) or (nfc != password and _verify(password, stored))
    if len(_checked) < CHECKED_MAX:
        _checked[tag] = ok
    return ok


def _verify(password: str, stored: str) -> bool:
    try:
        parts = stored.split("$")
        if parts[0] == SCHEME and len(parts) == 6:
            n, r, p = int(parts[1]), int(parts[2]), int(parts[3])
            if not (1 < n <= MAX_N and n & (n - 1) == 0 and 1 <= r <= 32 and 1 <= p <= 16):
                return False
            salt, expected = bytes.fromhex(parts[4]), bytes.fromhex(parts[5])
            digest = _scrypt(password, salt, n, r, p)
        elif parts[0] == _LEGACY and len(parts) == 4:
            salt, expected = bytes.fromhex(parts[2]), bytes.fromhex(parts[3])
            iters = int(parts[1])
            if not 1 <= iters <= 10_000_000:
                return False
            digest = hashlib.pbkdf2_hmac("sha256", password.encode("utf-8"), salt, iters)
        else:
            return False
    except (ValueError, TypeError, MemoryError):
        return False
    return hmac.compare_digest(digest, expected)


def needs_upgrade(stored: str) -> bool:
    """True for a hash in the old PBKDF2 format (replaced after its next
    successful check)."""
    return stored.startswith(_LEGACY + "$")


def upgraded_hash(password: str, stored: str) -> str:
    """The scrypt hash (full cost) replacing the old ``stored`` hash of
    ``password`` (call only after :func:`verify_password` succeeded). Its salt
    is derived from the old hash, so that the month run that upgrades it gives
    the same bytes when it is replayed; nobody without the old hash (which
    the new one replaces) can predict it."""
    salt = hashlib.sha256(b"wdg scrypt salt\0" + stored.encode("utf-8")).digest()[:16]
    return _format(password, salt, SCRYPT_N)


def scheme(stored: str) -> str:
    """A short description of a stored hash's scheme, for ``segment check``."""
    parts = stored.split("$")
    if parts[0] == SCHEME and len(parts) == 6:
        return f"scrypt N={parts[1]} r={parts[2]} p={parts[3]}"
    if parts[0] == _LEGACY and len(parts) == 4:
        return f"PBKDF2-SHA256 {parts[1]} (alt)"
    return "unbekannt"


def upgrade_hashes(seg: Segment, checked: dict[int, str]) -> list[int]:
    """Replace the old-format hash of each kingdom in ``checked`` (``{kingdom:
    password}`` whose check has just succeeded) by :func:`upgraded_hash`, in
    ``seg`` (a :class:`wdg.world.state.Segment`); returns the kingdoms changed.
    The caller saves the segment the ordinary way (atomic, under its lock)."""
    changed = []
    kingdoms = seg.kingdoms
    for number, password in sorted(checked.items()):
        k = kingdoms.get(number)
        player = getattr(k, "player", None)
        if player is None or not needs_upgrade(player.password_hash):
            continue
        if verify_password(password, player.password_hash):
            player.password_hash = upgraded_hash(password, player.password_hash)
            changed.append(number)
    return changed
