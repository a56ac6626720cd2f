"""The pots' labels (§5.4–§5.5): 메인 / 사이드 팟, the pot carried into a rematch (이월), the new
bets of a rematch, and a bet nobody has called yet (not a pot: it goes back if nobody calls).

The view lists the carried pots first, then the pots of this deal's bets; the seats say how much
each put in this deal (``committed``), so what is in the middle beyond that was carried.
"""

from __future__ import annotations

from engine.types import PotDict, PotResult, View

from ...i18n import N_, _
from ..widgets.texts import chips

Labelled = tuple[tuple[str, int], ...]

#: The labels are msgids: compared as they are, translated where shown.
MAIN, SIDE, CARRIED, NEW_BETS, UNCALLED = (
    N_("메인"),
    N_("사이드"),
    N_("이월"),
    N_("새 베팅"),
    N_("콜 대기"),
)


def _uncalled(view: View, pot: PotDict) -> bool:
    """A pot only its one eligible player's excess is in: nobody matched that bet (yet)."""
    eligible = pot.get("eligible") or []
    if len(eligible) != 1:
        return False
    committed = {s["id"]: int(s.get("committed") or 0) for s in view["seats"]}
    mine = committed.get(eligible[0], 0)
    others = max((c for p, c in committed.items() if p != eligible[0]), default=0)
    return mine - others == int(pot["amount"]) > 0


def labelled_pots(view: View) -> Labelled:
    """(label, amount) of every pot when there is a side pot or a carried one, else (): a bet
    nobody has called yet alone is no reason to split the pot line (it is on its seat)."""
    pots = view.get("pots") or []
    if len(pots) < 2:
        return ()
    committed = sum(int(s.get("committed") or 0) for s in view["seats"])
    carried = int(view.get("pot", 0)) - committed
    out: list[tuple[str, int]] = []
    fresh = 0
    for pot in pots:
        amount = int(pot["amount"])
        if carried > 0:
            carried -= amount
            out.append((CARRIED, amount))
        elif _uncalled(view, pot):
            out.append((UNCALLED, amount))
        else:
            first = fresh == 0
            fresh += 1
            rematch = any(label == CARRIED for label, _amount in out)
            out.append((NEW_BETS if rematch and first else MAIN if first else SIDE, amount))
    if not any(label in (SIDE, CARRIED) for label, _amount in out):
        return ()
    return tuple(out)


def pots_forms(pots: Labelled) -> tuple[str, ...]:
    """ "메인 300 · 사이드 200 · 사이드 90 · 콜 대기 100", then with the side pots summed
    ("메인 300 · 사이드 2개 290 · 콜 대기 100"): the pot line takes the longest that fits."""
    if not pots:
        return ()
    forms = [" · ".join(f"{_(label)} {chips(amount)}" for label, amount in pots)]
    sides = [amount for label, amount in pots if label == SIDE]
    if len(sides) > 1:
        merged: list[str] = []
        for label, amount in pots:
            if label != SIDE:
                merged.append(f"{_(label)} {chips(amount)}")
            elif not any(m.startswith(_(SIDE)) for m in merged):
                text = _("{side} {n}개 {chips}").format(
                    side=_(SIDE), n=len(sides), chips=chips(sum(sides))
                )
                merged.append(text)
        forms.append(" · ".join(merged))
    return tuple(forms)


def merged_results(results: list[PotResult]) -> list[tuple[PotResult, str]]:
    """The hand's results, one per winner group (a rematch's carried pot and its new bets won by
    the same player are one win), each with its pot's label (translated) when there is more
    than one. The engine settles the side pots first and the main pot last (§6.5)."""
    merged: list[tuple[PotResult, bool]] = []
    for i, r in enumerate(results):
        last = i == len(results) - 1
        key = (r.get("type"), r.get("winners"), r.get("reason"))
        for j, (m, main) in enumerate(merged):
            if (
                r.get("type") != "rematch"
                and (m.get("type"), m.get("winners"), m.get("reason")) == key
            ):
                net = {
                    w: (m.get("net") or {}).get(w, 0) + (r.get("net") or {}).get(w, 0)
                    for w in r.get("winners") or ()
                }
                merged[j] = ({**m, "amount": m["amount"] + r["amount"], "net": net}, main or last)
                break
        else:
            merged.append((r.copy(), last))
    if len(merged) < 2:
        return [(m, "") for m, _main in merged]
    return [
        (m, "" if m.get("type") == "rematch" else _(MAIN) if main else _(SIDE))
        for m, main in merged
    ]
