#!/usr/bin/env python3
"""Moves the Merchant Stablecoin sandbox's clocks from Python, standard library only.

The sandbox keeps two clocks. Business time (windows, expiries, token lifetime, locks, refunds,
daily limits, the 24-hour idempotency window) is what a test moves with
`POST /__sandbox/clock {"advance_ms": n}`. Signatures and nonces stay on real time, so a client
signing with its own clock keeps working however far business time moved (a token exchanged
before the move has expired: exchange again on `invalid_token`, as always). To test
`timestamp_out_of_range`, skew the signature clock on purpose with `{"signature_skew_ms": n}` (or
start the sandbox with `--signature-skew-ms`).

Start the sandbox with a seeded member, paste its `export` lines, then run
`python3 time_travel.py [member]`. It writes a withdrawal, replays it with the same idempotency
key, moves business time 25 hours, sends the same key again (a new order: the window passed),
then skews the signature clock 10 minutes and shows the refusal. At the end, even after a
failure, it moves both clocks back where they were, so a sandbox shared with other tests is left
on time.
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
# Needed only when the sandbox listens beyond loopback.
ADMIN = {"x-sandbox-admin-token": os.environ.get("MERCHANT_SANDBOX_ADMIN_TOKEN", ""), "content-type": "application/json"}
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
    """Signature headers stamped with this machine's own clock (Unix seconds)."""
    timestamp = str(int(time.time()))
    nonce = uuid.uuid4().hex
    string_to_sign = "\n".join([method, path, timestamp, nonce, hashlib.sha256(body).hexdigest()])
    digest = hmac.new(SIGNING_KEY.encode(), string_to_sign.encode(), hashlib.sha256).digest()
    return {"x-timestamp": timestamp, "x-nonce": nonce, "x-signature": base64.b64encode(digest).decode()}


def move_clock(change):
    """The admin API: business time and/or the signature clock's skew; returns both clocks."""
    status, _, clocks = call("POST", "/__sandbox/clock", ADMIN, json.dumps(change).encode())
    assert status == 200, clocks
    return clocks


def exchange():
    """A new token; the headers a member-scoped call carries."""
    status, _, token = call("POST", "/v1/connect/token", {"x-client-id": CLIENT_ID, "x-api-key": API_KEY})
    assert status == 200, token
    return {"x-auth-token": "Bearer " + token["auth_token"], "x-on-behalf-of": MEMBER, "content-type": "application/json"}


auth = exchange()
body = json.dumps({"asset": "USDT", "amount": "10", "to_address": "TQ7x1Vb9"}, separators=(",", ":")).encode()
key = str(uuid.uuid4())


def withdraw():
    """The same withdrawal, same key; an expired token is exchanged again once (a new nonce, the same key)."""
    global auth
    for _ in range(2):
        status, headers, order = call("POST", "/v1/withdrawals", {**auth, "x-idempotency-key": key, **sign("POST", "/v1/withdrawals", body)}, body)
        if order.get("code") != "invalid_token":
            break
        print("token: expired, exchanged again")
        auth = exchange()
    replay = " (replay)" if headers.get("x-idempotent-replay") == "true" else ""
    return status, order.get("id", order.get("code")) + replay


print("first write:", *withdraw())
print("same key:", *withdraw())
_, _, before = call("GET", "/__sandbox/clock", ADMIN)
moved_ms = 0
try:
    clocks = move_clock({"advance_ms": 25 * 60 * 60 * 1000})
    moved_ms = 25 * 60 * 60 * 1000
    print("business clock:", clocks["now"], "| signature skew:", clocks["signature_skew_ms"])
    print("same key after 25 h:", *withdraw())
    move_clock({"signature_skew_ms": 10 * 60 * 1000})
    status, error = withdraw()
    print("signature clock 10 min ahead:", status, error)
finally:
    # The sandbox may be shared with other tests: put back what this script moved, even after a failure.
    clocks = move_clock({"advance_ms": -moved_ms, "signature_skew_ms": before["signature_skew_ms"]})
    print("clocks put back: business", clocks["now"], "| signature skew:", clocks["signature_skew_ms"])
