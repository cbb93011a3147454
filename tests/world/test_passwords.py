"""Kingdom passwords (issue #30, item 3): generated from the operating system's
CSPRNG with at least 60 bits, never from the segment's seed; stored as scrypt
hashes; old PBKDF2 hashes replaced after their next successful check through
the ordinary save; files holding hashes are 0600."""

from __future__ import annotations

import hashlib
import mailbox
import re
import stat
from email.message import EmailMessage
from pathlib import Path

import yaml
from typer.testing import CliRunner

from wdg.cli import app
from wdg.world import passwords as pw
from wdg.world.generator import generate_segment
from wdg.store.segment import load_segment

runner = CliRunner()


def _legacy_hash(password: str, salt: bytes = b"0123456789abcdef", iterations: int = 50_000) -> str:
    """A hash as wdg wrote it before issue #30 (PBKDF2-SHA256, 50,000 rounds)."""
    digest = hashlib.pbkdf2_hmac("sha256", password.encode(), salt, iterations)
    return f"pbkdf2_sha256${iterations}${salt.hex()}${digest.hex()}"


def test_the_seed_to_password_attack_fails(tmp_path: Path) -> None:
    """The attack of issue #30: read the seed from segment.yaml (it is printed by
    `turn list` and `wdg export` too), run the generator with it and try its
    passwords against the stored hashes. The printed passwords match the
    hashes; the attacker's match none of them."""
    res = runner.invoke(app, ["segment", "new", "opfer", "--provinces", "2x2", "--kingdoms", "4",
                              "--seed", "4711", "-C", str(tmp_path)])
    assert res.exit_code == 0, res.output
    printed = dict(re.findall(r"(?m)^\s*(?:Königreich\s*)?(\d+)\D+?([a-z]+(?:-[a-z]+){4})\s*$",
                              res.output))
    assert len(printed) == 4, res.output
    seg_dir = tmp_path / "worlds" / "opfer"
    seed = yaml.safe_load((seg_dir / "segment.yaml").read_text())["seed"]
    hashes = {int(k["number"]): k["player"]["password_hash"]
              for k in yaml.safe_load((seg_dir / "kingdoms.yaml").read_text())["kingdoms"]
              if k.get("player")}
    for k, plain in printed.items():
        assert pw.verify_password(plain, hashes[int(k)])
    _, guessed = generate_segment("opfer", 2, 2, 4, seed)
    assert guessed and not any(pw.verify_password(g, h) for g in guessed.values()
                               for h in hashes.values())
    assert all(h.startswith(f"scrypt${pw.SCRYPT_N}$8$1$") for h in hashes.values())


def test_generated_passwords_have_at_least_60_bits_and_are_typable() -> None:
    assert pw.PASSWORD_BITS >= 60
    assert len(set(pw.SYLLABLES)) == len(pw.SYLLABLES) == 80
    drawn = [pw.generate_password() for _ in range(3000)]
    assert len(set(drawn)) == len(drawn)
    word = re.compile(r"^(?:%s){2}$" % "|".join(sorted(pw.SYLLABLES, key=len, reverse=True)))
    for p in drawn:
        parts = p.split("-")
        assert len(parts) == pw.WORDS and all(word.match(x) for x in parts), p
        assert p.isascii() and p.islower()
    # every syllable turns up: the draw covers the whole alphabet
    seen = {p[i:i + 2] for p in drawn for i in range(0, 2)}
    assert len(seen) > 40


def test_scrypt_hashes_verify_in_nfc_and_refuse_tampering() -> None:
    h = pw.hash_password("Gänseblümchen-7")
    assert h.startswith("scrypt$32768$8$1$")
    assert pw.verify_password("Gänseblümchen-7", h)
    assert pw.verify_password("Ga\u0308nseblu\u0308mchen-7", h)  # decomposed, as macOS types it
    assert not pw.verify_password("gänseblümchen-7", h)
    assert not pw.needs_upgrade(h)
    parts = h.split("$")
    flipped = parts[:5] + [("0" if parts[5][0] != "0" else "1") + parts[5][1:]]
    assert not pw.verify_password("Gänseblümchen-7", "$".join(flipped))
    for bad in ("", "scrypt$", "scrypt$3$8$1$00$00", "scrypt$1073741824$8$1$00$00",
                "md5$x", "pbkdf2_sha256$0$00$00"):
        assert not pw.verify_password("x", bad)


def test_an_old_pbkdf2_hash_still_verifies_and_its_upgrade_is_deterministic() -> None:
    old = _legacy_hash("canura-5")
    assert pw.verify_password("canura-5", old) and pw.needs_upgrade(old)
    new = pw.upgraded_hash("canura-5", old)
    assert new == pw.upgraded_hash("canura-5", old)  # a replay gives the same bytes
    assert new.startswith(f"scrypt${pw.SCRYPT_N}$") and pw.verify_password("canura-5", new)
    assert new.split("$")[4] != old.split("$")[2]  # not the old (perhaps seeded) salt


def _mbox(path: Path, body: str) -> Path:
    box = mailbox.mbox(str(path))
    msg = EmailMessage()
    msg["From"] = "spieler@example.org"
    msg["Message-ID"] = "<upgrade@example.org>"
    msg["Subject"] = "Spielzug"
    msg.set_content(body)
    box.add(msg)
    box.flush()
    box.close()
    return path


def test_orders_import_upgrades_an_old_hash_after_a_good_check(tmp_path: Path) -> None:
    """A segment written before issue #30: its kingdom's PBKDF2 hash is replaced
    by a scrypt hash when a sheet with the right password is imported (saved
    the ordinary way: kingdoms.yaml 0600); a wrong password changes nothing."""
    res = runner.invoke(app, ["segment", "new", "alt", "--provinces", "2x2", "--kingdoms", "2",
                              "--seed", "5", "--demo-passwords", "-C", str(tmp_path)])
    assert res.exit_code == 0, res.output
    seg_dir = tmp_path / "worlds" / "alt"
    data = yaml.safe_load((seg_dir / "kingdoms.yaml").read_text())
    for k in data["kingdoms"]:
        if k.get("player"):
            k["player"]["password_hash"] = _legacy_hash(f"alt-{k['number']}")
    (seg_dir / "kingdoms.yaml").write_text(yaml.safe_dump(data, allow_unicode=True,
                                                          sort_keys=False))
    res = runner.invoke(app, ["segment", "accept", "alt", "-C", str(tmp_path)])  # the hand edit
    assert res.exit_code == 0, res.output
    sheet = "Segment: alt\nKönigreich: {k}\nPasswort: {p}\nK\n"
    _mbox(tmp_path / "a.mbox", sheet.format(k=1, p="alt-1") + "\n\n"
          + sheet.format(k=2, p="falsch"))
    res = runner.invoke(app, ["orders", "import", "alt", str(tmp_path / "a.mbox"),
                              "-C", str(tmp_path)])
    assert res.exit_code in (0, 3), res.output
    seg = load_segment(seg_dir)
    h1, h2 = (seg.kingdoms[n].player.password_hash for n in (1, 2))
    assert h1 == pw.upgraded_hash("alt-1", _legacy_hash("alt-1"))
    assert pw.verify_password("alt-1", h1)
    assert h2 == _legacy_hash("alt-2")  # wrong password: not touched
    assert stat.S_IMODE((seg_dir / "kingdoms.yaml").stat().st_mode) == 0o600
    assert stat.S_IMODE((seg_dir / "segment.yaml").stat().st_mode) == 0o600


def test_a_pair_checked_again_costs_no_second_scrypt_and_keeps_its_answer(monkeypatch):
    """Issue #30 item 3 (a modern KDF and cost) without paying it twice for the same
    pair: a player's three corrections in one import cost one check. The answer is
    the same as the first (right stays right, wrong stays wrong), another hash or
    another password is checked anew, and the process's memory holds no password."""
    h = pw.hash_password("kali-motu-resa-beni-fuwo")
    calls = []
    real = pw._scrypt
    monkeypatch.setattr(pw, "_scrypt", lambda *a: calls.append(a[0]) or real(*a))
    assert pw.verify_password("kali-motu-resa-beni-fuwo", h)
    assert not pw.verify_password("kali-motu-resa-beni-fuwa", h)
    assert len(calls) == 2
    assert pw.verify_password("kali-motu-resa-beni-fuwo", h)
    assert not pw.verify_password("kali-motu-resa-beni-fuwa", h)
    assert len(calls) == 2  # both answered from memory
    other = pw.hash_password("kali-motu-resa-beni-fuwo")  # same password, new salt
    made = len(calls)
    assert pw.verify_password("kali-motu-resa-beni-fuwo", other) and len(calls) == made + 1
    assert not any(b"kali" in k for k in pw._checked)
