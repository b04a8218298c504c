"""An OAuth 2.1 resource server, as the MCP authorization specification (2025-11-25) describes it.

The host names the authorization server it trusts (``issuer``) and its own resource identifier (``resource``,
RFC 8707: the URL clients name when they ask for a token, e.g. ``https://tools.example/mcp``). It then

- serves its protected-resource metadata (RFC 9728 §2) at the well-known URL derived from the resource
  (RFC 9728 §3.1: ``/.well-known/oauth-protected-resource`` inserted before the resource's path), and at the
  root well-known URL, where MCP clients look when a 401 names none;
- answers every request without a valid access token 401 with ``WWW-Authenticate: Bearer`` carrying
  ``resource_metadata`` (RFC 9728 §5.1), the scopes a call needs (``scope``) and, when a token was presented,
  ``error="invalid_token"`` and an ``error_description`` (RFC 6750 §3); a valid token without those scopes gets
  403 ``insufficient_scope`` (RFC 6750 §3.1);
- accepts an access token only as a JWT signed by one of the issuer's keys (``jwks``) with an asymmetric
  algorithm (``ALGORITHMS``: never ``none``, never an HMAC, whose secret would be the public key), unexpired,
  not before its ``nbf`` or ``iat`` (``LEEWAY`` seconds of clock skew either way), whose ``iss`` is the issuer
  and whose ``aud`` holds the resource, so a token minted for another service is refused (MCP: "MUST validate
  that access tokens were issued specifically for them").

Signatures and claims are checked by PyJWT (the ``oauth`` extra, which brings ``cryptography``); no crypto here.
A token is never logged, echoed or passed on: refusals name the check that failed, not the token.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Final
from urllib.parse import urlsplit

from toolproof.runtime.context import Caller
from toolproof.runtime.serve.jwks import FetchError, JsonFetch, KeySet, fetch_json, https_or_loopback

if TYPE_CHECKING:
    import jwt as _jwt

    from toolproof.runtime.serve.introspection import Introspection

__all__ = [
    "ALGORITHMS",
    "LEEWAY",
    "METADATA_PATH",
    "FetchError",
    "OAuthSettings",
    "ResourceServer",
    "TokenRefusal",
    "require_jwt",
]

METADATA_PATH: Final = "/.well-known/oauth-protected-resource"
ALGORITHMS: Final = ("RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512", "EdDSA")
"""The JWS algorithms a token may be signed with: asymmetric ones only."""
_KEY_TYPES: Final = {"RS": "RSA", "PS": "RSA", "ES": "EC", "Ed": "OKP"}
LEEWAY: Final = 60.0
"""Seconds of clock skew allowed between this host and the authorization server, on ``exp``, ``nbf`` and ``iat``."""
_INSTALL: Final = "OAuth needs PyJWT with cryptography: pip install 'toolproof[oauth]'"


def require_jwt() -> None:
    """Check that the ``oauth`` extra is installed.

    Raises:
        ImportError: it is not; the message says what to install.
    """
    try:
        from jwt.algorithms import has_crypto
    except ImportError:
        raise ImportError(_INSTALL) from None
    if not has_crypto:
        raise ImportError(_INSTALL)


@dataclass(frozen=True, slots=True)
class OAuthSettings:
    """Which authorization server a host trusts, what it is to it, and what a call needs."""

    issuer: str
    """The authorization server's issuer identifier: a token's ``iss`` must equal it."""
    resource: str
    """This host's resource identifier (RFC 8707, RFC 9728 ``resource``): a token's ``aud`` must hold it."""
    jwks_uri: str | None = None
    """The issuer's JWKS; None: its metadata's ``jwks_uri``."""
    scopes: tuple[str, ...] = ()
    """Scopes every call needs (all of them), advertised as ``scopes_supported``."""
    supported: tuple[str, ...] = ()
    """Scopes some calls need (those the served tools' contracts name), advertised after ``scopes``."""

    def __post_init__(self) -> None:
        for what, url in (("issuer", self.issuer), ("resource", self.resource), ("JWKS", self.jwks_uri)):
            if url is None:
                continue
            parts = urlsplit(url)
            if not https_or_loopback(url) or parts.query or parts.fragment:
                raise ValueError(f"the OAuth {what} {url!r} must be an https URL (or http to loopback), no query")
        if any(not scope or any(char.isspace() or char in '"\\' for char in scope) for scope in self.all_scopes):
            raise ValueError("an OAuth scope is empty or holds whitespace, a quote or a backslash")

    @property
    def all_scopes(self) -> tuple[str, ...]:
        """Every scope a call of this host may need: ``scopes``, then ``supported``, once each."""
        return tuple(dict.fromkeys((*self.scopes, *self.supported)))

    @property
    def metadata_path(self) -> str:
        """The path of the metadata's well-known URL for this resource (RFC 9728 §3.1)."""
        return METADATA_PATH + urlsplit(self.resource).path.rstrip("/")

    @property
    def metadata_url(self) -> str:
        """The metadata's well-known URL, which ``resource_metadata`` in a challenge names."""
        parts = urlsplit(self.resource)
        return f"{parts.scheme}://{parts.netloc}{self.metadata_path}"

    def metadata(self) -> dict[str, Any]:
        """The protected-resource metadata document (RFC 9728 §2)."""
        document: dict[str, Any] = {
            "resource": self.resource,
            "authorization_servers": [self.issuer],
            "bearer_methods_supported": ["header"],  # RFC 6750 §2.1 only: MCP forbids tokens in the query
            "resource_signing_alg_values_supported": list(ALGORITHMS),
        }
        if self.all_scopes:
            document["scopes_supported"] = list(self.all_scopes)
        return document


@dataclass(frozen=True, slots=True)
class TokenRefusal:
    """Why a request's token is refused: the status, RFC 6750's error code (None: no token) and a description."""

    status: int
    error: str | None = None
    description: str = "a valid bearer token is required"
    scopes: tuple[str, ...] = field(default=())
    """The scopes the challenge names (``insufficient_scope``: all the refused call needs); empty: the host's."""

    def challenge(self, settings: OAuthSettings) -> bytes:
        """The ``WWW-Authenticate`` value for this refusal (RFC 6750 §3, RFC 9728 §5.1)."""
        params = [f'resource_metadata="{settings.metadata_url}"']
        scopes = self.scopes or settings.scopes
        if scopes:
            params.append(f'scope="{" ".join(scopes)}"')
        if self.error is not None:  # RFC 6750 §3.1: no error code when the request carried no token
            params += [f'error="{self.error}"', f'error_description="{self.description}"']
        return ("Bearer " + ", ".join(params)).encode("ascii")


_MISSING: Final = TokenRefusal(401)


class ResourceServer:
    """Checks the bearer token of each request against ``settings``; see the module's docstring.

    Args:
        settings: the issuer, resource and scopes.
        fetch: fetches a JSON document (tests may count or fail the fetches).
        refetch_interval: seconds between key fetches an unknown ``kid`` may trigger, at least.

    Raises:
        ImportError: the ``oauth`` extra is not installed.
    """

    def __init__(
        self,
        settings: OAuthSettings,
        *,
        fetch: JsonFetch = fetch_json,
        refetch_interval: float = 30.0,
        introspection: Introspection | None = None,
    ):
        require_jwt()
        self.settings = settings
        self.introspection = introspection
        """Checks tokens that are not JWTs with the authorization server (RFC 7662); None: they are refused."""
        self.keys = KeySet(settings.issuer, settings.jwks_uri, fetch=fetch, refetch_interval=refetch_interval)

    async def authenticate(self, authorization: str | None) -> Caller | TokenRefusal:
        """The caller an ``Authorization`` header proves, or why it proves none.

        Raises:
            FetchError: the issuer's keys are needed and cannot be fetched (the host answers 503).
        """
        import jwt

        scheme, _, token = (authorization or "").strip().partition(" ")
        token = token.strip()
        if scheme.lower() != "bearer" or not token:
            return _MISSING
        try:
            header = jwt.get_unverified_header(token)
        except jwt.PyJWTError:
            if self.introspection is None:
                return _invalid("the token is not a well-formed JWT")
            introspected = await self.introspection.check(token)
            return _invalid(introspected) if isinstance(introspected, str) else self._scoped(introspected)
        alg = header.get("alg")
        if alg not in ALGORITHMS:
            return _invalid("the token's signing algorithm is not accepted")
        kid = header.get("kid")
        jwk = await self.keys.key(kid if isinstance(kid, str) else None)
        if jwk is None:
            return _invalid("the token is signed with a key the authorization server does not publish")
        key = _public_key(jwk, alg)
        if key is None:
            return _invalid("the token's algorithm does not fit its key")
        try:
            claims = jwt.decode(
                token,
                key,
                algorithms=[alg],
                audience=self.settings.resource,
                issuer=self.settings.issuer,
                leeway=LEEWAY,
                options={"require": ["exp", "iat", "iss", "aud"]},
            )
        except jwt.PyJWTError as exc:
            return _invalid(_described(exc))
        return self._scoped(_caller(claims))

    def _scoped(self, caller: Caller) -> Caller | TokenRefusal:
        """``caller``, or a 403 when its token lacks a scope every call needs."""
        missing = [scope for scope in self.settings.scopes if scope not in caller.scopes]
        if missing:
            return TokenRefusal(403, "insufficient_scope", "the token lacks a scope this server requires")
        return caller


def _invalid(description: str) -> TokenRefusal:
    return TokenRefusal(401, "invalid_token", description)


def _public_key(jwk: Mapping[str, Any], alg: str) -> Any:
    """The public key of ``jwk`` for ``alg``, or None when the key is of another type or for another algorithm."""
    from jwt import PyJWK, PyJWTError

    if jwk.get("kty") != _KEY_TYPES[alg[:2]] or jwk.get("alg", alg) != alg or "d" in jwk or "k" in jwk:
        return None  # a private or symmetric key in a published set is never used
    try:
        return PyJWK(dict(jwk), algorithm=alg).key
    except (PyJWTError, ValueError, TypeError):
        return None


def _described(exc: _jwt.PyJWTError) -> str:
    """What a PyJWT error says about the token, in a fixed sentence (the exception's text may quote claims)."""
    import jwt

    if isinstance(exc, jwt.ExpiredSignatureError):
        return "the token has expired"
    if isinstance(exc, jwt.ImmatureSignatureError):
        return "the token is not yet valid"
    if isinstance(exc, jwt.InvalidAudienceError):
        return "the token was not issued for this resource"
    if isinstance(exc, jwt.InvalidIssuerError):
        return "the token was not issued by the trusted authorization server"
    if isinstance(exc, jwt.MissingRequiredClaimError):
        return f"the token lacks the {exc.claim} claim"
    if isinstance(exc, jwt.InvalidSignatureError):
        return "the token's signature does not verify"
    if isinstance(exc, jwt.InvalidIssuedAtError):
        return "the token's iat claim is not a time"
    return "the token is not a valid JWT"


def _caller(claims: Mapping[str, Any]) -> Caller:
    """The caller a verified token names: ``sub``, ``client_id`` (RFC 9068 §2.2) and ``scope`` (or ``scp``)."""
    scope = claims.get("scope", claims.get("scp", ""))
    scopes = scope.split() if isinstance(scope, str) else [item for item in scope if isinstance(item, str)]
    subject, client = claims.get("sub"), claims.get("client_id", claims.get("azp"))
    return Caller(
        subject=subject if isinstance(subject, str) else None,
        client_id=client if isinstance(client, str) else None,
        scopes=frozenset(scopes),
        issuer=str(claims["iss"]),
    )
