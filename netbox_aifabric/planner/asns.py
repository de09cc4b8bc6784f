"""Which ASNs a fabric may use: the IANA reserved and documentation ASNs (errors) and the private ranges.

An ASN outside the private ranges and not reserved is public: allowed, but only the holder of its registration
should use it (a warning, see :mod:`.warnings`).
"""

__all__ = ('ASN_MAX', 'PRIVATE_ASNS', 'PRIVATE_TEXT', 'RESERVED_ASNS', 'first_public', 'first_reserved')

ASN_MAX = 4_294_967_295

# (first, last, why): never to be configured on a router
RESERVED_ASNS = (
    (0, 0, 'reserved (RFC 7607)'),
    (23_456, 23_456, 'AS_TRANS, reserved for 2-byte/4-byte ASN transition (RFC 6793)'),
    (64_496, 64_511, 'reserved for documentation (RFC 5398)'),
    (65_535, 65_535, 'reserved (RFC 7300)'),
    (65_536, 65_551, 'reserved for documentation (RFC 5398)'),
    (ASN_MAX, ASN_MAX, 'reserved (RFC 7300)'),
)
PRIVATE_ASNS = ((64_512, 65_534), (4_200_000_000, 4_294_967_294))  # RFC 6996
PRIVATE_TEXT = '64512–65534 or 4200000000–4294967294 (RFC 6996)'


def first_reserved(first: int, last: int) -> tuple[int, str] | None:
    """The lowest reserved ASN in ``first``–``last`` and why it is reserved, or None."""
    for low, high, why in RESERVED_ASNS:
        if low <= last and first <= high:
            return max(low, first), why
    return None


def first_public(first: int, last: int) -> int | None:
    """The lowest ASN in ``first``–``last`` that is neither private nor reserved, or None."""
    not_public = sorted([*PRIVATE_ASNS, *((low, high) for low, high, _ in RESERVED_ASNS)])
    candidate = first
    for low, high in not_public:
        if candidate < low:
            break
        candidate = max(candidate, high + 1)
    return candidate if candidate <= last else None
