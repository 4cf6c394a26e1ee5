"""Maximum cardinality matching in a general graph (Edmonds' blossom algorithm, O(V³)).

The Swiss pairing uses it to know, before committing to a bracket's pairs, that everyone
left below can still be paired (FIDE's "completion" criterion) and, as a last resort, to
pair what no Dutch-order candidate could. Fields are small (a few dozen players), so the
textbook algorithm is plenty.
"""

from __future__ import annotations

from collections.abc import Sequence


def maximum_matching(adjacency: Sequence[Sequence[int]]) -> list[int]:
    """`mate[v]` for every vertex (-1 if unmatched) in a maximum matching of the graph
    whose neighbours of vertex v are `adjacency[v]`."""
    n = len(adjacency)
    mate = [-1] * n
    # A greedy start makes most augmentations unnecessary.
    for v in range(n):
        if mate[v] == -1:
            for w in adjacency[v]:
                if mate[w] == -1 and w != v:
                    mate[v], mate[w] = w, v
                    break
    for root in range(n):
        if mate[root] == -1:
            end, parent = _augmenting_path(adjacency, mate, root)
            while end != -1:
                parent_end = parent[end]
                next_end = mate[parent_end]
                mate[end], mate[parent_end] = parent_end, end
                end = next_end
    return mate


def _augmenting_path(
    adjacency: Sequence[Sequence[int]], mate: list[int], root: int
) -> tuple[int, list[int]]:
    """Searches an augmenting path from `root`: its free end (or -1) and the parent links
    to walk it back."""
    n = len(adjacency)
    used = [False] * n
    parent = [-1] * n
    base = list(range(n))
    used[root] = True
    queue = [root]
    head = 0

    def lca(a: int, b: int) -> int:
        seen = [False] * n
        while True:
            a = base[a]
            seen[a] = True
            if mate[a] == -1:
                break
            a = parent[mate[a]]
        while True:
            b = base[b]
            if seen[b]:
                return b
            b = parent[mate[b]]

    def mark(v: int, b: int, child: int, blossom: list[bool]) -> None:
        while base[v] != b:
            blossom[base[v]] = blossom[base[mate[v]]] = True
            parent[v] = child
            child = mate[v]
            v = parent[mate[v]]

    while head < len(queue):
        v = queue[head]
        head += 1
        for to in adjacency[v]:
            if base[v] == base[to] or mate[v] == to:
                continue
            if to == root or (mate[to] != -1 and parent[mate[to]] != -1):
                current = lca(v, to)
                blossom = [False] * n
                mark(v, current, to, blossom)
                mark(to, current, v, blossom)
                for i in range(n):
                    if blossom[base[i]]:
                        base[i] = current
                        if not used[i]:
                            used[i] = True
                            queue.append(i)
            elif parent[to] == -1:
                parent[to] = v
                if mate[to] == -1:
                    return to, parent
                used[mate[to]] = True
                queue.append(mate[to])
    return -1, parent


def has_perfect_matching(adjacency: Sequence[Sequence[int]]) -> bool:
    return all(m != -1 for m in maximum_matching(adjacency))
