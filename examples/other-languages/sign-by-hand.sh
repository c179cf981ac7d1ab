#!/bin/sh
# Calls the Merchant Stablecoin sandbox by hand with curl and openssl (and sed to read JSON).
#
# Start the sandbox (`npx merchant-stablecoin-sandbox --seed seed.json` in a project that installed
# the package, or `npx --package ./merchant-stablecoin-0.1.0.tgz merchant-stablecoin-sandbox --seed
# seed.json` from its tarball: docs/sandbox-server.md, "Start it"), paste its `export`
# lines, then run `sh sign-by-hand.sh [member]`. It exchanges a token, signs a withdrawal, reads
# the member's balance, then sends a request whose signature cannot match (the query is left out
# of the signed path) and prints the sandbox's diagnosis of it.
set -eu

BASE=${MERCHANT_API_BASE_URL%/}
MEMBER=${1:-alice}

# The value of a top-level string or number field of a one-line JSON answer.
field() { sed -n "s/.*\"$1\":\"\{0,1\}\([^\",}]*\).*/\1/p"; }

# sign METHOD PATH BODY: prints the three signature headers as curl -H arguments, one per line.
sign() {
  ts=$(date +%s)
  nonce=$(openssl rand -hex 16)
  body_hash=$(printf '%s' "$3" | openssl dgst -sha256 -r | cut -d' ' -f1)
  signature=$(printf '%s\n%s\n%s\n%s\n%s' "$1" "$2" "$ts" "$nonce" "$body_hash" |
    openssl dgst -sha256 -hmac "$MERCHANT_API_SIGNING_KEY" -binary | openssl base64 -A)
  printf 'x-timestamp: %s\nx-nonce: %s\nx-signature: %s\n' "$ts" "$nonce" "$signature"
}

uuid() { openssl rand -hex 16 | sed 's/^\(.\{8\}\)\(.\{4\}\)\(.\{4\}\)\(.\{4\}\)\(.\{12\}\)$/\1-\2-\3-\4-\5/'; }

# post PATH_SENT PATH_SIGNED BODY: a signed POST; prints the response headers and body.
post() {
  sig=$(sign POST "$2" "$3")
  curl -sS -i -X POST "$BASE$1" \
    -H "x-auth-token: Bearer $TOKEN" -H "x-on-behalf-of: $MEMBER" -H 'content-type: application/json' \
    -H "x-idempotency-key: $(uuid)" \
    -H "$(echo "$sig" | sed -n 1p)" -H "$(echo "$sig" | sed -n 2p)" -H "$(echo "$sig" | sed -n 3p)" \
    --data-binary "$3"
}

# The token exchange is the one POST that is not signed: the two credentials only (the spec:
# "the signing_key is never used for token exchange").
TOKEN=$(curl -sS -X POST "$BASE/v1/connect/token" -H "x-client-id: $MERCHANT_API_CLIENT_ID" -H "x-api-key: $MERCHANT_API_KEY" | field auth_token)
[ -n "$TOKEN" ] || { echo "token exchange failed" >&2; exit 1; }
echo "token: ok"

BODY='{"asset":"USDT","amount":"10","to_address":"TQ7x1Vb9"}'
ORDER=$(post /v1/withdrawals /v1/withdrawals "$BODY")
echo "withdrawal: $(echo "$ORDER" | sed -n '1s/^HTTP\/[0-9.]* \([0-9]*\).*/\1/p') $(echo "$ORDER" | tail -n 1 | field id)"

BALANCES=$(curl -sS "$BASE/v1/balances" -H "x-auth-token: Bearer $TOKEN" -H "x-on-behalf-of: $MEMBER")
echo "balance: USDT available $(echo "$BALANCES" | field available)"

# A mistake on purpose: the request line carries ?x=1, the signed path does not.
REFUSED=$(post '/v1/withdrawals?x=1' /v1/withdrawals "$BODY")
REQUEST_ID=$(echo "$REFUSED" | tr -d '\r' | sed -n 's/^x-request-id: //ip')
echo "refused: $(echo "$REFUSED" | tail -n 1 | field code)"
# The admin API needs its token only when the sandbox listens beyond loopback.
echo "diagnosis: $(curl -sS "$BASE/__sandbox/requests/$REQUEST_ID" -H "x-sandbox-admin-token: ${MERCHANT_SANDBOX_ADMIN_TOKEN:-}" |
  sed -n 's/.*"message":"\([^"]*\)".*/\1/p')"
