"""The import's outcomes and reasons travel as codes (issue #44): programs
compare :class:`~wdg.orders.outcome.IntakeStatus` and
:class:`~wdg.orders.outcome.IntakeReason` members; the German words come from
one table of the text layer (:mod:`wdg.orders.confirm`), and the codes stored
in receipts and records stay what every earlier version wrote."""

from __future__ import annotations

import email
import email.policy

import yaml

from tests.orders.test_intake import DEADLINE, standard_mails, write_mbox
from wdg.campaign import Campaign
from wdg.orders import confirm
from wdg.orders.confirm import confirmation
from wdg.orders.intake import import_mailbox
from wdg.orders.outcome import IntakeReason, IntakeStatus


def test_the_stored_codes_are_those_every_version_wrote():
    """Receipts, the record of imported mails and the fetch's report carry the
    status as these words since 0.1; they are storage codes now and must not
    change."""
    assert {s.name: s.value for s in IntakeStatus} == {
        "ACCEPTED": "angenommen", "REPLACED_OLDER": "älter", "DUPLICATE": "bereits erfasst",
        "REJECTED": "abgelehnt", "QUARANTINED": "Quarantäne"}


def test_each_refusal_a_program_acts_on_has_its_code(world, tmp_path):
    """The standard mails: a wrong password (kingdom 2) and a sheet after the
    Eintreffschluß 13:00 (kingdom 3) carry their codes beside the German reason."""
    camp = Campaign(tmp_path)
    write_mbox(tmp_path / "in.mbox", standard_mails())
    report = import_mailbox(camp, world, tmp_path / "in.mbox", deadline=DEADLINE)
    by_id = {r.message_id: r for r in report.results}
    assert (by_id["<3@x>"].status, by_id["<3@x>"].cause) == (IntakeStatus.REJECTED,
                                                             IntakeReason.WRONG_PASSWORD)
    assert (by_id["<4@x>"].status, by_id["<4@x>"].cause) == (IntakeStatus.REJECTED,
                                                             IntakeReason.LATE)
    assert by_id["<2@x>"].status is IntakeStatus.ACCEPTED and by_id["<2@x>"].cause is None


def test_the_late_paragraph_follows_the_code_not_the_reasons_words():
    """A late sheet's answer says the Eintreffschluß is past whatever the reason's
    wording; a reason that merely begins like a late one does not say it
    (before #44 the answer looked for "nach dem Eintreffschluß" in the reason)."""
    late = confirmation(IntakeStatus.REJECTED, "too late", 3, "", cause=IntakeReason.LATE,
                        deadline="01.05.2024 13:00")
    assert "Der Eintreffschluß (01.05.2024 13:00) ist vorbei" in late
    other = confirmation(IntakeStatus.REJECTED, "nach dem Eintreffschluß … (Test)", 3, "")
    assert "ist vorbei" not in other and "erneut" in other


def test_rewording_a_status_changes_what_is_shown_not_what_is_stored(world, tmp_path,
                                                                     monkeypatch):
    """The word of "angenommen" reworded in the text layer's one table: the
    import's table and the answer's subject show the new word, the receipt
    still stores the code ``angenommen``."""
    monkeypatch.setitem(confirm.STATUS_WORDS, IntakeStatus.ACCEPTED, "übernommen")
    camp = Campaign(tmp_path)
    write_mbox(tmp_path / "in.mbox", standard_mails())
    out = tmp_path / "outbox"
    report = import_mailbox(camp, world, tmp_path / "in.mbox", deadline=DEADLINE, outbox=out)
    folder = camp.orders_dir("test", world.date)
    receipt = yaml.safe_load((folder / "k4.receipt.yaml").read_text(encoding="utf-8"))
    assert receipt["status"] == "angenommen"
    assert "status: angenommen\n" in (folder / "k4.receipt.yaml").read_text(encoding="utf-8")
    ok = next(r for r in report.results if r.kingdom == 4)
    msg = email.message_from_bytes(ok.confirmation.read_bytes(), policy=email.policy.default)
    assert msg["Subject"] == "Spielzug Königreich 4: übernommen"
    assert "übernommen" in report.table() and " angenommen " not in report.table()
