"""What a refused or late sheet's answer tells the player (issue #39 item 9): the
wrong-password refusal names the deadline; a late sheet is not told to send again
"vor dem Eintreffschluß" (it has passed) but what happens instead; "eingetroffen"
is in the segment's zone, like the deadline.

Rule ("Der Spielzug"): "Der Spielzug muß den Segmentleiter bis zu dem von ihm
angegebenen Datum (EINTREFFSCHLUSS) bis 13:00 Uhr (mittags) erreicht haben!\""""

from __future__ import annotations

import email
import email.policy

from tests.orders.test_intake import mail, sheet, write_maildir
from wdg.campaign import Campaign
from wdg.orders.intake import import_mailbox, parse_deadline

DEADLINE = parse_deadline("2024-05-01 13:00", "Europe/Berlin")


def _answers(report) -> dict[str, str]:
    out = {}
    for r in report.results:
        msg = email.message_from_bytes(r.confirmation.read_bytes(), policy=email.policy.default)
        out[r.message_id] = msg.get_content()
    return out


def test_refusals_name_the_deadline_and_late_sheets_hear_what_happens(world, tmp_path):
    camp = Campaign(tmp_path)
    # Maildir delivery times: 10:00, 10:01, 10:02 UTC+2 ... (write_maildir); the last
    # one a day later: 02.05.2024 10:00 Berlin = 08:00 UTC, after the deadline
    box = tmp_path / "Maildir"
    write_maildir(box, [
        mail("a@x.org", "Wed, 01 May 2024 10:00:00 +0200", sheet(1, "geheim-1"), msgid="<1@x>"),
        mail("b@x.org", "Wed, 01 May 2024 10:01:00 +0200", sheet(2, "falsch"), msgid="<2@x>"),
    ])
    write_maildir(box, [mail("c@x.org", "Thu, 02 May 2024 10:00:00 +0200",
                             sheet(3, "geheim-3"), msgid="<3@x>")], start=1714636800)
    report = import_mailbox(camp, world, box, deadline=DEADLINE)
    text = _answers(report)
    # accepted: arrived 10:00 Berlin time (08:00 UTC), said in the segment's zone
    assert "eingetroffen 01.05.2024 10:00 (Europe/Berlin)" in text["<1@x>"]
    # wrong password: send again by the deadline, which is named
    assert "falsches Passwort" in text["<2@x>"]
    assert "bis zum Eintreffschluß 01.05.2024 13:00 (Europe/Berlin) erneut" in text["<2@x>"]
    # late: not "send again before the deadline"; what happens instead
    late = text["<3@x>"]
    assert "vor dem Eintreffschluß erneut" not in late and "erneut" not in late
    assert "nach dem Eintreffschluß 01.05.2024 13:00 eingetroffen (02.05.2024 10:00)" in late
    assert "Der Eintreffschluß (01.05.2024 13:00 (Europe/Berlin)) ist vorbei" in late
    assert "ohne Ihre Befehle ausgewertet" in late
