"""Posts of draw offers and takeback requests: recorded once, listed while they still show
the buttons of a request that was settled (answered, or lapsed by a move), then settled."""

from __future__ import annotations

from storage import Storage
from storage.models import RequestStatus
from tests.storage.conftest import T0, new_game


async def test_a_lapsed_offer_post_is_listed_until_settled(store: Storage) -> None:
    game = await new_game(store)
    offer = await store.draws.offer(game.id, game.white_id, T0)
    await store.offer_posts.record("draw", offer.id, game.id, 77, 1001)
    await store.offer_posts.record("draw", offer.id, game.id, 77, 1001)  # idempotent
    assert await store.offer_posts.unsettled(game.id) == []  # still pending
    await store.draws.decline(offer.id, game.black_id, T0 + 1)
    (post,) = await store.offer_posts.unsettled()
    assert (post.kind, post.request_id, post.message_id) == ("draw", offer.id, 1001)
    assert post.status is RequestStatus.DECLINED and post.by_id == game.white_id
    await store.offer_posts.settle("draw", offer.id, T0 + 2)
    await store.offer_posts.settle("draw", offer.id, T0 + 3)
    assert await store.offer_posts.unsettled() == []
