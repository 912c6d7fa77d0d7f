"""BGPsec (RFC 8205) with algorithm suite 1 (RFC 8608: ECDSA P-256, SHA-256), one module per object:

- `path`        the BGPsec_PATH attribute (section 3): Secure_Path, Signature_Blocks; encode, strict decode
- `octets`      the octets each signer hashes (section 4.2), built once per path, a suffix per signer
- `keys`        router keys by SKI and AS: from relying-party output, router certificates, key files
- `sign`        originating and forwarding a signed path (sections 4.2, 4.3)
- `verify`      validation (section 5): Valid, or Not Valid with the reason; answers reused
- `capability`  the BGPsec capability of OPEN (section 2.1)
- `update`      a BGPsec UPDATE message (one prefix in MP_REACH_NLRI, no AS_PATH)
"""
