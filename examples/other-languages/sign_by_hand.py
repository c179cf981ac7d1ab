#!/usr/bin/env python3
"""Calls the Merchant Stablecoin sandbox by hand, with the standard library only.

Start the sandbox (`npx merchant-stablecoin-sandbox --seed seed.json` in a project that installed
the package, or `npx --package ./merchant-stablecoin-0.1.0.tgz merchant-stablecoin-sandbox --seed
seed.json` from its tarball: docs/sandbox-server.md, "Start it"), paste its `export` lines, then
run `python3 sign_by_hand.py [member]`. It exchanges a token, signs a withdrawal, reads the
member's balance, then sends a request whose signature cannot match (the query is left out of the
signed path) and prints the sandbox's diagnosis of it.
"""
import base64
import hashlib
import hmac
import json
import os
import sys
import time
import urllib.error
import urllib.request
import uuid

BASE = os.environ["MERCHANT_API_BASE_URL"].rstrip("/")
CLIENT_ID = os.environ["MERCHANT_API_CLIENT_ID"]
API_KEY = os.environ["MERCHANT_API_KEY"]
SIGNING_KEY = os.environ["MERCHANT_API_SIGNING_KEY"]
MEMBER = sys.argv[1] if len(sys.argv) > 1 else "alice"


def call(method, path, headers, body=b""):
    """One HTTP call; returns (status, headers, parsed JSON body)."""
    req = urllib.request.Request(BASE + path, data=body if method != "GET" else None, method=method, headers=headers)
    try:
        with urllib.request.urlopen(req) as res:
            return res.status, res.headers, json.loads(res.read() or b"{}")
    except urllib.error.HTTPError as err:
        return err.code, err.headers, json.loads(err.read() or b"{}")


def sign(method, path, body):
    """The five signature headers' values: timestamp (seconds), nonce, base64 HMAC-SHA256."""
    timestamp = str(int(time.time()))
    nonce = uuid.uuid4().hex
    body_hash = hashlib.sha256(body).hexdigest()
    string_to_sign = "\n".join([method.upper(), path, timestamp, nonce, body_hash])
    digest = hmac.new(SIGNING_KEY.encode(), string_to_sign.encode(), hashlib.sha256).digest()
    return {"x-timestamp": timestamp, "x-nonce": nonce, "x-signature": base64.b64encode(digest).decode()}


# The token exchange is the one POST that is not signed: the two credentials only (the spec:
# "the signing_key is never used for token exchange").
status, _, token = call("POST", "/v1/connect/token", {"x-client-id": CLIENT_ID, "x-api-key": API_KEY})
assert status == 200, token
auth = {"x-auth-token": "Bearer " + token["auth_token"], "x-on-behalf-of": MEMBER}
print("token: ok, expires at", token["expired_at"])

# A withdrawal: the body is serialized once, and those exact bytes are hashed and sent.
body = json.dumps({"asset": "USDT", "amount": "10", "to_address": "TQ7x1Vb9"}, separators=(",", ":")).encode()
headers = {**auth, "content-type": "application/json", "x-idempotency-key": str(uuid.uuid4()), **sign("POST", "/v1/withdrawals", body)}
status, _, order = call("POST", "/v1/withdrawals", headers, body)
print("withdrawal:", status, order.get("id"), order.get("status"))

status, _, balances = call("GET", "/v1/balances", auth)
usdt = next(row for row in balances["data"] if row["asset"] == "USDT")
print("balance: USDT available", usdt["available"], "withdrawing", usdt["withdrawing"])

# A mistake on purpose: the request line carries ?x=1, the signed path does not.
headers = {**auth, "content-type": "application/json", "x-idempotency-key": str(uuid.uuid4()), **sign("POST", "/v1/withdrawals", body)}
status, res_headers, error = call("POST", "/v1/withdrawals?x=1", headers, body)
print("refused:", status, error["code"])
# The admin API needs its token only when the sandbox listens beyond loopback.
admin = {"x-sandbox-admin-token": os.environ.get("MERCHANT_SANDBOX_ADMIN_TOKEN", "")}
status, _, entry = call("GET", "/__sandbox/requests/" + res_headers["x-request-id"], admin)
print("diagnosis:", entry["diagnosis"]["message"])
print("expected string-to-sign:", json.dumps(entry["diagnosis"]["expectedStringToSign"]))
