"""One maximum bipartite matcher, over groups of interchangeable items.

Trace validation (``unordered``, ``superset``, ``subset``) and the multiset ``contains``
both pair items one to one: each left item (an expected call, an expected list item)
with a distinct right item (a recorded call, an actual list item) it fits. Greedy
first-fit fails inputs that have a valid pairing, so the pairing is a maximum matching.

Items that are equal (same tool name and equal arguments, equal JSON values) fit
exactly the same partners, so the matcher works on *groups*: a left group with a count,
a right group with a capacity, and an edge where one representative of each fits the
other. A trace of 10,000 calls over a few dozen distinct calls is then a graph of a few
dozen nodes, and the number of shape comparisons is the product of distinct shapes,
not of calls.

Left items are placed in order, each by a breadth-first augmenting path over the groups
(no recursion, so no depth limit). Placing in order keeps the answer the one a user
can predict: a left item stays unmatched only when it cannot be added to the pairing
of the items before it, whichever augmenting paths were taken (the matched items form
the greedy basis of a transversal matroid). A group that once failed to place an item
fails for every later item of it, so it is never searched again.
"""

from __future__ import annotations

import math
from collections import defaultdict, deque
from typing import Any, Hashable, Iterable, Sequence


def group(keys: Iterable[Hashable]) -> tuple[list[int], list[list[int]]]:
    """Number the distinct keys in order of first appearance.

    Returns the group of each item and the items of each group, in order.
    """
    ids: dict[Hashable, int] = {}
    of: list[int] = []
    members: list[list[int]] = []
    for index, key in enumerate(keys):
        gid = ids.get(key)
        if gid is None:
            gid = ids[key] = len(members)
            members.append([])
        of.append(gid)
        members[gid].append(index)
    return of, members


def match_groups(left_group: Sequence[int], right_members: Sequence[Sequence[int]],
                 edges: Sequence[Sequence[int]]) -> dict[int, int]:
    """A maximum matching: left item -> right item.

    ``left_group[i]`` is the group of left item ``i``; ``right_members[r]`` the right items
    of right group ``r``; ``edges[g]`` the right groups that left group ``g`` fits, in the
    order to try them. Deterministic: the same input gives the same pairs.
    """
    capacity = [len(m) for m in right_members]
    used = [0] * len(right_members)
    # flow[g][r]: how many items of left group g sit in right group r (insertion-ordered);
    # users[r]: the left groups with items in r. Both sparse: most groups of a long trace
    # take part in no pairing at all.
    flow: defaultdict[int, dict[int, int]] = defaultdict(dict)
    users: defaultdict[int, dict[int, None]] = defaultdict(dict)
    failed = [False] * len(edges)
    matched_left: defaultdict[int, list[int]] = defaultdict(list)

    for item, g in enumerate(left_group):
        if failed[g] or not _augment(g, edges, capacity, used, flow, users):
            failed[g] = True
            continue
        matched_left[g].append(item)

    # Hand out concrete items: each left group's matched items in order, to its right
    # groups in edge order, each right group's items in order.
    next_right = [0] * len(right_members)
    pairs: dict[int, int] = {}
    for g in sorted(matched_left):
        items = matched_left[g]
        at = 0
        for r in edges[g]:
            for _ in range(flow[g].get(r, 0)):
                pairs[items[at]] = right_members[r][next_right[r]]
                next_right[r] += 1
                at += 1
    return pairs


def _augment(start: int, edges, capacity, used, flow, users) -> bool:
    """Add one unit from left group ``start``: a free right slot, or a chain of moves."""
    for r in edges[start]:  # the common case: a partner is free
        if used[r] < capacity[r]:
            _move(start, None, r, flow, users)
            used[r] += 1
            return True
    came_from_right: dict[int, int] = {}  # right group -> the left group that reached it
    came_from_left: dict[int, int] = {start: -1}  # left group -> the right group it is moved out of
    queue = deque([start])
    while queue:
        g = queue.popleft()
        for r in edges[g]:
            if r in came_from_right:
                continue
            came_from_right[r] = g
            if used[r] < capacity[r]:
                used[r] += 1
                while True:  # walk back: each left group moves one unit into the slot after it
                    g = came_from_right[r]
                    out = came_from_left[g]
                    _move(g, out if out >= 0 else None, r, flow, users)
                    if out < 0:
                        return True
                    r = out
            for h in users.get(r, ()):
                if h not in came_from_left:
                    came_from_left[h] = r
                    queue.append(h)
    return False


def _move(g: int, source, target: int, flow, users) -> None:
    """Move one unit of left group ``g`` from right group ``source`` (None: a new unit) to ``target``."""
    if source is not None:
        left = flow[g][source] - 1
        if left:
            flow[g][source] = left
        else:
            del flow[g][source]
            del users[source][g]
    flow[g][target] = flow[g].get(target, 0) + 1
    users[target][g] = None


def json_key(value: Any) -> Hashable:
    """A hashable key under which JSON-equal values meet: ``1`` and ``1.0`` share one,
    ``true`` and ``1`` do not, object key order does not matter.

    The key is a *flat* tuple of tagged tokens (a prefix code: containers give their
    length), so hashing and comparing it never recurses, however deep the value. Strings
    and flat objects of strings and integers (most tool names and arguments) take a
    shortcut that gives the same tokens.
    """
    kind = type(value)
    if kind is str:
        return ("s", value)
    if kind is dict:
        flat: list = ["d", len(value)]
        for k, v in sorted(value.items(), key=_key_text):
            kind = type(v)
            if kind is str:
                flat += ("k", k, "s", v)
            elif kind is int:
                flat += ("k", k, "n", v)
            else:
                break
        else:
            return tuple(flat)
    tokens: list = []
    stack: list = [value]
    while stack:
        node = stack.pop()
        if isinstance(node, _Name):
            tokens += ("k", node.name)
        elif isinstance(node, bool):
            tokens += ("b", node)
        elif isinstance(node, (int, float)):
            tokens += ("n", node) if not (isinstance(node, float) and math.isnan(node)) else ("x", id(node))
        elif isinstance(node, str):
            tokens += ("s", node)
        elif node is None:
            tokens.append("z")
        elif isinstance(node, dict):
            tokens += ("d", len(node))
            for k, v in sorted(node.items(), key=_key_text, reverse=True):  # a stack: reversed
                stack += (v, _Name(k))
        elif isinstance(node, (list, tuple)):
            tokens += ("l", len(node))
            stack.extend(reversed(node))
        else:
            tokens += ("x", id(node))  # not JSON: never equal to anything else
    return tuple(tokens)


class _Name:
    """An object key on :func:`json_key`'s stack (keys are emitted, never walked)."""

    __slots__ = ("name",)

    def __init__(self, name: Any):
        self.name = name


def _key_text(item: tuple) -> str:
    return str(item[0])
