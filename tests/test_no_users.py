"""Instructions without users share one empty ``Users`` (issue 36 item 3): the first user an
instruction gains, by any write path, gives it its own, and the shared one stays empty."""

from __future__ import annotations

from xladoctor.ir.users import NO_USERS, Users
from xladoctor.syntax.hlo_parser import parse_module

TEXT = """HloModule m

ENTRY e {
  p = f32[8]{0} parameter(0)
  q = f32[8]{0} parameter(1)
  a = f32[8]{0} negate(p)
  b = f32[8]{0} negate(q)
  dead = f32[8]{0} abs(p)
  ROOT t = (f32[8]{0}, f32[8]{0}) tuple(a, b)
}
"""


def _parsed():
    module = parse_module(TEXT)
    return module, {i.name: i for i in module.entry.instructions}


def test_instructions_without_users_share_the_empty_users():
    _, i = _parsed()
    assert i["t"].users is NO_USERS and i["dead"].users is NO_USERS
    assert i["p"].users is not NO_USERS and [u.name for u in i["p"].users] == ["a", "dead"]
    assert len(NO_USERS) == 0


def test_every_write_path_gives_the_first_user_its_own_users():
    _, i = _parsed()
    i["b"].replace_operand(0, i["dead"])  # replace_operand
    assert [u.name for u in i["dead"].users] == ["b"] and i["t"].users is NO_USERS
    i["a"].replace_all_uses_with(i["t"].operands[1])  # _replace_uses: b gains t's first slot
    assert [u.name for u in i["b"].users] == ["t"]
    neg = i["a"].clone_with_new_operands(i["a"].shape, [i["t"]], "neg2")  # link_operands on a fresh copy
    assert [u.name for u in i["t"].users] == ["neg2"] and neg.users is NO_USERS
    i["dead"].operands = (i["q"], i["t"])  # the operands setter
    assert [u.name for u in i["t"].users] == ["neg2", "dead"]
    assert len(NO_USERS) == 0 and i["a"].users is NO_USERS  # its one user (kept bare) gone: the shared empty again
    i["a"].sort_users(lambda u: 0)
    i["p"].users.swap_remove(i["t"])  # not a user: nothing changes
    assert len(NO_USERS) == 0
    type(neg).unlink({neg, i["q"]})  # remove_stable over users, the shared empty one among them
    assert [u.name for u in i["t"].users] == ["dead"] and len(NO_USERS) == 0


def test_one_user_is_kept_bare_and_the_second_makes_users_in_order():
    _, i = _parsed()
    a, b, dead, q = i["a"], i["b"], i["dead"], i["q"]
    assert a._users is i["t"] and a.users == (i["t"],)  # no Users for the one user
    assert isinstance(i["p"]._users, Users)  # two users: a vector
    b.replace_operand(0, a)  # a gains b: [t, b], in XLA's order
    assert isinstance(a._users, Users) and [u.name for u in a.users] == ["t", "b"]
    dead.operands = (a,)
    assert [u.name for u in a.users] == ["t", "b", "dead"]
    i["t"].replace_operand(0, q)  # RemoveUser: the last user (dead) takes t's slot
    assert [u.name for u in a.users] == ["dead", "b"]
    assert q.users == (i["t"],) and q._users is i["t"]  # b left q (NO_USERS), t came: bare again
    assert dead in a.users and i["t"] not in a.users


def _reads_agree(instrs) -> None:
    """The store's cheap reads say what ``users`` says, for every instruction and a few sets."""
    sets = [set(), set(instrs), set(instrs[::2]), set(instrs[1::2])]
    for x in instrs:
        users = x.users
        assert x.user_count() == len(users)
        assert x.has_users() is bool(users)
        assert [x.users_within(s) for s in sets] == [s.issuperset(users) for s in sets]


def test_user_count_has_users_and_users_within_read_as_users_does():
    _, i = _parsed()
    instrs = list(i.values())
    _reads_agree(instrs)  # none (t, dead), one kept bare (a, b, q), a Users (p)
    a, b, dead, q = i["a"], i["b"], i["dead"], i["q"]
    assert a.user_count() == 1 and i["p"].user_count() == 2 and not dead.has_users()
    assert a.users_within({i["t"]}) and not i["p"].users_within({a})
    b.replace_operand(0, a)  # a: t, b
    dead.operands = (a,)  # a: t, b, dead
    _reads_agree(instrs)
    for user in (i["t"], b, dead):  # a's own Users emptied, not the shared one
        user.replace_operand(0, q)
    assert list(a.users) == [] and a._users is not NO_USERS and a.user_count() == 0 and not a.has_users()
    assert a.users_within(set())
    _reads_agree(instrs)
