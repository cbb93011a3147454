"""``wdg mail forms``: the first order form and the starting map, by mail, to
every player (or to those who have not had theirs: a kingdom added later).

Each playing kingdom with a mail address (not a city state, not retired, not a
bot's) gets one mail: a German cover with the month, the deadline and what to
do; attachments: the pre-filled order form (``spielzug-kK-<M>.txt``), the
kingdom's map (``karte-kK.svg``, what it knows) and its view
(``ansicht-kK-<M>.yaml``). The password is never in it: the game master hands
out the passwords printed by ``wdg segment new``/``wdg kingdom add`` another
way (docs/security.md). Sent exactly once per kingdom and month (send record key
``formular/<YYYY-MM>/k<K>``); a form that changed since (the deadline was set
later, say) is listed and sent only with ``corrections``, marked as a
correction.
"""

from __future__ import annotations

from email.message import EmailMessage
from email.policy import SMTP
from email.utils import format_datetime, make_msgid

from wdg.campaign import Campaign
from wdg.errors import StateError
from wdg.mail.config import load_mail_config
from wdg.mail.guard import header_address
from wdg.mail.results import segment_now, sender_domain
from wdg.mail.send import Outgoing, SendResult, digest, send_mails
from wdg.orders.template import render_template
from wdg.orders.view import build_view, view_to_yaml
from wdg.reports.maps import render_map_svg
from wdg.store.lock import segment_lock
from wdg.store.segment import load_segment
from wdg.store.sent import Ledger
from wdg.textpolicy import header_name
from wdg.world.deadline import describe
from wdg.world.state import Segment


def form_key(month_key: str, kingdom: int) -> str:
    """The send record's key of a kingdom's form mail."""
    return f"formular/{month_key}/k{kingdom}"


def form_mails(seg: Segment, sender: str, kingdoms: list[int] | None = None,
               ledger: Ledger | None = None) -> tuple[list[Outgoing], dict[int, str]]:
    """The form mails of the segment's current month, and the kingdoms skipped (why).

    Without ``kingdoms``, a kingdom that already got a form or a result by mail in
    an earlier month (its result carries next month's form) is skipped: these are
    *first* forms. Naming it in ``kingdoms`` sends it this month's form anyway."""
    had: set[int] = set()
    if ledger is not None and kingdoms is None:
        for key, recs in ledger.records.items():
            kind, _, rest = key.partition("/")
            if kind in ("formular", "bericht") and any(r.state == "sent" for r in recs) \
                    and key != form_key(seg.date.key, int(rest.rpartition("/k")[2] or 0)):
                had.add(int(rest.rpartition("/k")[2]))

    mails: list[Outgoing] = []
    skipped: dict[int, str] = {}
    month = seg.date
    for k in sorted(seg.kingdoms):
        if kingdoms is not None and k not in kingdoms:
            continue
        kd = seg.kingdoms[k]
        if kd.city_state or kd.retired:
            continue
        if kd.bot:
            skipped[k] = f"wird vom Bot {kd.bot} gespielt"
            continue
        if k in had:
            skipped[k] = ("hat schon Spielzüge per Mail bekommen (jedes Ergebnis enthält den "
                          "nächsten; --kingdom sendet diesen Mond trotzdem)")
            continue
        if kd.player is None or not kd.player.email or kd.player.email.endswith(".invalid"):
            skipped[k] = "hat keinen Spieler mit Mailadresse"
            continue
        form = render_template(seg, k)
        svg = render_map_svg(seg, k)
        view = view_to_yaml(build_view(seg, k))
        to = header_address(kd.player.name, kd.player.email)  # names cleaned (issue #39)
        deadline = describe(seg, month)

        def build(correction: bool, k: int = k, kd=kd, form: str = form, svg: str = svg,
                  view: str = view, to: str = to, deadline: str = deadline) -> EmailMessage:
            title = seg.title or seg.name
            msg = EmailMessage(policy=SMTP)
            msg["From"] = sender
            msg["To"] = to
            msg["Subject"] = (("Berichtigung: " if correction else "")
                              + f"WdG {header_name(title) or seg.name}: Spielzug für "
                              f"{header_name(kd.name) or 'Königreich'} (Königreich {k}), "
                              f"{month.short()}")
            msg["Date"] = format_datetime(segment_now(seg))
            msg["Message-ID"] = make_msgid(f"wdg.{seg.name}.{month.key}.form.k{k}",
                                           domain=sender_domain(sender))
            msg["Auto-Submitted"] = "auto-generated"
            lines = []
            if correction:
                lines += ["BERICHTIGUNG: Dieser Spielzug ersetzt den zuvor geschickten.", ""]
            lines += [f"Willkommen in {title}!", "",
                      f"Du spielst {kd.name} (Königreich {k}). Beigefügt:",
                      f"- spielzug-k{k}-{month.key}.txt: dein vorbereiteter Spielzug für "
                      f"{month.long()}",
                      f"- karte-k{k}.svg: die Karte, soweit dein Reich sie kennt (im Browser "
                      "öffnen)",
                      f"- ansicht-k{k}-{month.key}.yaml: die Ansicht deines Reiches für "
                      "eigene Werkzeuge", "",
                      f"{deadline}.", "",
                      "Trage dein Passwort ein (du bekommst es von der Spielleitung, nie per "
                      "Mail), schreibe deine Befehle und schicke den Spielzug als Text in "
                      "einer Mail an diese Adresse zurück. Du bekommst sofort eine Bestätigung "
                      "mit der Prüfung deines Spielzugs.", ""]
            msg.set_content("\n".join(lines), charset="utf-8")
            msg.add_attachment(form, subtype="plain", filename=f"spielzug-k{k}-{month.key}.txt",
                               charset="utf-8")
            msg.add_attachment(svg.encode("utf-8"), maintype="image", subtype="svg+xml",
                               filename=f"karte-k{k}.svg")
            msg.add_attachment(view.encode("utf-8"), maintype="application", subtype="yaml",
                               filename=f"ansicht-k{k}-{month.key}.yaml")
            return msg

        mails.append(Outgoing(form_key(month.key, k), kd.player.email, build,
                              digest(form.encode(), svg.encode(), view.encode()),
                              {"month": month.key, "kingdom": k}))
    return mails, skipped


def send_forms(camp: Campaign, segment: str, *, kingdoms: list[int] | None = None,
               corrections: bool = False) -> tuple[SendResult, dict[int, str], int]:
    """Send the due form mails under the segment's lock; returns (result,
    skipped kingdoms, number of mails considered)."""

    seg_dir = camp.segment_dir(segment)
    with segment_lock(seg_dir):
        seg = load_segment(seg_dir)
        config = load_mail_config(seg_dir)
        if config is None or config.smtp is None:
            raise StateError(f"kein SMTP-Server eingerichtet ({seg_dir / 'mail.yaml'}, "
                             "Abschnitt smtp:; docs/gamemaster.md); nichts versandt")
        ledger = Ledger(seg_dir)
        mails, skipped = form_mails(seg, config.sender, kingdoms, ledger)
        return send_mails(ledger, config, mails, corrections=corrections), skipped, len(mails)
