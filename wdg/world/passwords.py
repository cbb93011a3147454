"""Kingdom passwords: stored only as salted hashes, compared in constant time.

Format: ``pbkdf2_sha256$<iterations>$<salt hex>$<hash hex>``. The salt comes
from the caller's generator when determinism is wanted (the segment
generator), else from :func:`secrets.token_bytes`.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import unicodedata

import numpy as np

ITERATIONS = 50_000
_PREFIX = "pbkdf2_sha256"


def hash_password(password: str, rng: np.random.Generator | None = None) -> str:
    """A salted hash of ``password`` (in Unicode NFC)."""
    password = unicodedata.normalize("NFC", password)
    salt = bytes(rng.integers(0, 256, size=16, dtype=np.uint8)) if rng is not None \
        else secrets.token_bytes(16)
    digest = hashlib.pbkdf2_hmac("sha256", password.encode("utf-8"), salt, ITERATIONS)
    return f"{_PREFIX}${ITERATIONS}${salt.hex()}${digest.hex()}"


def verify_password(password: str, stored: str) -> bool:
    """True if ``password`` matches ``stored`` (constant-time comparison);
    False for an empty or malformed stored hash. The password is compared in
    Unicode NFC (as typed on any system) and as given."""
    nfc = unicodedata.normalize("NFC", password)
    return _verify(nfc, stored) or (nfc != password and _verify(password, stored))


def _verify(password: str, stored: str) -> bool:
    try:
        prefix, iters, salt_hex, hash_hex = stored.split("$")
        if prefix != _PREFIX:
            return False
        salt, expected = bytes.fromhex(salt_hex), bytes.fromhex(hash_hex)
        digest = hashlib.pbkdf2_hmac("sha256", password.encode("utf-8"), salt, int(iters))
    except (ValueError, TypeError):
        return False
    return hmac.compare_digest(digest, expected)


def generate_password(rng: np.random.Generator | None = None, words: int = 3) -> str:
    """A readable random password like ``taler-burg-mond-47``."""
    syll = ["burg", "mond", "stern", "wald", "see", "berg", "gold", "feld", "tal", "horn",
            "rabe", "wolf", "eiche", "fluss", "krone", "schild", "turm", "hain", "fels", "glut"]
    if rng is None:
        parts = [secrets.choice(syll) for _ in range(words)] + [str(secrets.randbelow(90) + 10)]
    else:
        parts = [syll[int(i)] for i in rng.integers(0, len(syll), size=words)]
        parts.append(str(int(rng.integers(10, 100))))
    return "-".join(parts)
