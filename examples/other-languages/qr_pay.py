#!/usr/bin/env python3
"""Seeds a QR code on the Merchant Stablecoin sandbox and pays it, standard library only.

Start the sandbox with a seeded member holding USDT (docs/sandbox-server.md, "Start it"), paste
its `export` lines, then run `python3 qr_pay.py [member]`. It registers a fixed-amount code
through the admin API (`POST /__sandbox/qr-codes`, a sandbox route: the real service has no such
thing), decodes it, asks for a quote and pays it with signed calls, then reads the balance.

The payload is whatever `code_value` you give (or one the sandbox generates and answers). The
sandbox also decodes `sbxqr:<payee>:<CURRENCY>:<amount>` (fixed amount) and
`sbxqr:<payee>:<CURRENCY>:open` (custom amount) without seeding: docs/sandbox-server.md, "QR codes".
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
    """One HTTP call; returns (status, parsed JSON body)."""
    req = urllib.request.Request(BASE + path, data=body if method != "GET" else None, method=method, headers=headers)
    try:
        with urllib.request.urlopen(req) as res:
            return res.status, json.loads(res.read() or b"{}")
    except urllib.error.HTTPError as err:
        return err.code, json.loads(err.read() or b"{}")


def signed(method, path, payload, auth):
    """A signed call on behalf of MEMBER; every write carries an idempotency key."""
    body = json.dumps(payload, separators=(",", ":")).encode()
    timestamp, nonce = str(int(time.time())), uuid.uuid4().hex
    string_to_sign = "\n".join([method, path, timestamp, nonce, hashlib.sha256(body).hexdigest()])
    digest = hmac.new(SIGNING_KEY.encode(), string_to_sign.encode(), hashlib.sha256).digest()
    headers = {**auth, "x-on-behalf-of": MEMBER, "content-type": "application/json", "x-idempotency-key": str(uuid.uuid4()),
               "x-timestamp": timestamp, "x-nonce": nonce, "x-signature": base64.b64encode(digest).decode()}
    return call(method, path, headers, body)


status, seeded = call("POST", "/__sandbox/qr-codes", ADMIN,
                      json.dumps({"code_value": "table-7", "payee": "Noodle Bar", "currency": "THB", "amount": "360"}).encode())
assert status == 201, seeded
code = {"code_value": seeded["code_value"]}
print("seeded:", code["code_value"])

status, token = call("POST", "/v1/connect/token", {"x-client-id": CLIENT_ID, "x-api-key": API_KEY})
assert status == 200, token
auth = {"x-auth-token": "Bearer " + token["auth_token"]}

status, decoded = signed("POST", "/v1/qrpay/decode", code, auth)
assert status == 200, decoded
print("decoded:", decoded["payee"], decoded["amount"], decoded["currency"], "editable" if decoded["amount_editable"] else "fixed")

status, quote = signed("POST", "/v1/qrpay/quotes", code, auth)
assert status == 200, quote
chosen = quote["chosen"]
print("quote:", chosen["asset"], chosen["customer_total"], "fee", chosen["fee"])

# Paying quotes again: the amount may differ from the quote's customer_total by a few minor units.
status, payment = signed("POST", "/v1/qrpay/payments", code, auth)
assert status == 201, payment
print("paid:", status, payment["id"], payment["status"], payment["asset"], payment["amount"])

status, rows = call("GET", "/__sandbox/members/%s/balances" % MEMBER, ADMIN)
assert status == 200, rows
row = next(r for r in rows["data"] if r["asset"] == payment["asset"])
print("balance:", row["asset"], "available", row["available"])
