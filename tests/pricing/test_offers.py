import pytest

from pricing.offers import OfferRecord, as_confidence, as_pricing_kind, normalise_gpu_counts


def make(**extra):
    base = dict(
        provider_slug="p",
        provider_name="P",
        gpu_slug="a40",
        instance_name="i",
        gpu_counts=(4, 8),
        price_per_gpu_hour_usd=0.59,
    )
    return OfferRecord(**{**base, **extra})


def test_smallest_allowed_count_covering_the_need():
    offer = make()
    assert offer.smallest_count_covering(3) == 4
    assert offer.smallest_count_covering(5) == 8
    assert offer.smallest_count_covering(9) is None


def test_largest_gpu_count_is_the_biggest_instance_or_none_when_unpublished():
    assert make().largest_gpu_count == 8
    assert make(gpu_counts=(1,)).largest_gpu_count == 1
    assert make(gpu_counts=()).largest_gpu_count is None


def test_instance_price_is_per_gpu_price_times_count_unless_quoted():
    assert make().instance_price_per_hour(8) == pytest.approx(4.72)
    quoted = make(instance_price_usd=((8, 50.44),), price_per_gpu_hour_usd=6.305)
    assert quoted.instance_price_per_hour(8) == 50.44
    assert quoted.instance_price_per_hour(4) == pytest.approx(25.22)


def test_natural_key_tells_reserved_terms_apart():
    assert make(pricing_kind="reserved", term="1y").natural_key != make(pricing_kind="reserved", term="3y").natural_key


@pytest.mark.parametrize(("raw", "counts"), [(None, ()), ([], ()), ([8, 1, 4, 4], (1, 4, 8)), (2, (2,))])
def test_gpu_counts_are_sorted_unique_or_unknown(raw, counts):
    assert normalise_gpu_counts(raw) == counts


@pytest.mark.parametrize("raw", [[0], [-1], ["8"], [True], "8", {"8": 1}])
def test_gpu_counts_refuse_anything_else(raw):
    with pytest.raises(ValueError):
        normalise_gpu_counts(raw)


def test_stored_kind_and_confidence_are_read_back_as_their_literals():
    assert as_pricing_kind("spot") == "spot"
    assert as_confidence("medium") == "medium"
    with pytest.raises(ValueError, match="pricing kind"):
        as_pricing_kind("hourly")
    with pytest.raises(ValueError, match="confidence"):
        as_confidence("certain")


def test_an_offer_of_a_gpu_sold_in_several_form_factors_says_whether_its_name_names_one():
    assert make(gpu_slug="h200-nvl", instance_name="8x H200 NVL").form_factor_stated
    assert not make(gpu_slug="h200-sxm", instance_name="8x H200 141GB").form_factor_stated  # the seed's Nebius row
    assert make(gpu_slug="a40", instance_name="8x A40").form_factor_stated  # one form factor: nothing to name
