"""Checks that prove the fabric is what was intended. ``intent`` reads the stored intent before anything is built."""
