"""Glicko-2 (Mark Glickman, "Example of the Glicko-2 system", 2012), written out plainly.

Each finished rated game is one rating period for both players (as most online servers do);
before a game, a player's deviation first grows for every whole inactive period since their
last rated game (`PERIOD_SECONDS`), up to the starting deviation.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

SCALE = 173.7178
TAU = 0.5  # the system constant: how much volatility may change (Glickman suggests 0.3-1.2)
EPSILON = 0.000001
START_RATING = 1500.0
START_DEVIATION = 350.0
START_VOLATILITY = 0.06
PERIOD_SECONDS = 14 * 86_400
"""A correspondence rating period: two weeks without a rated game widen the deviation once."""
PROVISIONAL_DEVIATION = 110.0


@dataclass(frozen=True, slots=True)
class Glicko:
    rating: float = START_RATING
    deviation: float = START_DEVIATION
    volatility: float = START_VOLATILITY


def _g(phi: float) -> float:
    return 1 / math.sqrt(1 + 3 * phi * phi / (math.pi * math.pi))


def _e(mu: float, mu_j: float, phi_j: float) -> float:
    return 1 / (1 + math.exp(-_g(phi_j) * (mu - mu_j)))


def inactive(player: Glicko, periods: int) -> Glicko:
    """The deviation after `periods` rating periods without games (step 6 of the paper)."""
    if periods <= 0:
        return player
    phi = player.deviation / SCALE
    for _ in range(max(0, periods)):
        phi = math.sqrt(phi * phi + player.volatility * player.volatility)
    return Glicko(player.rating, min(START_DEVIATION, phi * SCALE), player.volatility)


def update(player: Glicko, results: Sequence[tuple[Glicko, float]], tau: float = TAU) -> Glicko:
    """The player's new rating after one period with `results` (opponent, score 0..1)."""
    mu = (player.rating - START_RATING) / SCALE
    phi = player.deviation / SCALE
    sigma = player.volatility
    if not results:
        return inactive(player, 1)
    v_inv = 0.0
    delta_sum = 0.0
    for opponent, score in results:
        mu_j = (opponent.rating - START_RATING) / SCALE
        phi_j = opponent.deviation / SCALE
        e = _e(mu, mu_j, phi_j)
        g = _g(phi_j)
        v_inv += g * g * e * (1 - e)
        delta_sum += g * (score - e)
    v = 1 / v_inv
    delta = v * delta_sum
    # Step 5: the new volatility, by the Illinois algorithm.
    a = math.log(sigma * sigma)

    def f(x: float) -> float:
        ex = math.exp(x)
        num = ex * (delta * delta - phi * phi - v - ex)
        den = 2 * (phi * phi + v + ex) ** 2
        return num / den - (x - a) / (tau * tau)

    big_a = a
    if delta * delta > phi * phi + v:
        big_b = math.log(delta * delta - phi * phi - v)
    else:
        k = 1
        while f(a - k * tau) < 0:
            k += 1
        big_b = a - k * tau
    f_a, f_b = f(big_a), f(big_b)
    while abs(big_b - big_a) > EPSILON:
        big_c = big_a + (big_a - big_b) * f_a / (f_b - f_a)
        f_c = f(big_c)
        if f_c * f_b <= 0:
            big_a, f_a = big_b, f_b
        else:
            f_a /= 2
        big_b, f_b = big_c, f_c
    new_sigma = math.exp(big_a / 2)
    phi_star = math.sqrt(phi * phi + new_sigma * new_sigma)
    new_phi = 1 / math.sqrt(1 / (phi_star * phi_star) + 1 / v)
    new_mu = mu + new_phi * new_phi * delta_sum
    return Glicko(new_mu * SCALE + START_RATING, new_phi * SCALE, new_sigma)
