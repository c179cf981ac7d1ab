#!/bin/sh
# Verifies one Merchant Stablecoin sandbox webhook delivery with openssl.
#
# The sandbox's scheme (the specification names the z-signature header but does not show the
# service's procedure): z-signature is the lowercase hex HMAC-SHA256 of the raw request body,
# keyed with MERCHANT_WEBHOOK_SECRET (printed by the sandbox command when it generated it).
#
# Run `sh verify-webhook.sh BODY_FILE Z_SIGNATURE`, with the body's raw bytes as received (not
# re-serialized JSON). Prints "verified" and exits 0, or prints why not and exits 1. A shell
# comparison is not constant-time: fine for tests, use hmac.compare_digest or the like in a server.
set -eu

[ $# -eq 2 ] || { echo "usage: sh verify-webhook.sh BODY_FILE Z_SIGNATURE" >&2; exit 2; }
expected=$(openssl dgst -sha256 -hmac "$MERCHANT_WEBHOOK_SECRET" -r <"$1" | cut -d' ' -f1)
if [ "$expected" = "$2" ]; then
  echo "verified"
else
  echo "refused: z-signature does not match the body"
  exit 1
fi
