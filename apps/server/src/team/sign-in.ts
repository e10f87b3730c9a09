// Sign-in through the team's OpenID provider with openid-client (the certified relying party):
// discovery from the issuer, the authorization code flow with PKCE, state and nonce; the ID token
// is checked by openid-client (issuer, audience, nonce, expiry, signature; `none` is refused), the
// person's claims completed from userinfo. A login in flight lives in the state store, so any
// instance may finish it.
import { randomBytes } from 'node:crypto';
import type { PersonToCheck, ProviderView, TeamRole, TeamSessionRepository } from '@toolrow/state';
import * as oidc from 'openid-client';
import { roleOf, type TeamConfig } from './config.ts';

/** A sign-in refused: the message says why, in words for the person at the browser. */
export class SignInError extends Error {
  override name = 'SignInError';
}

/**
 * The scopes to ask for: as configured, plus (when TOOLROW_OIDC_SCOPES was left unset and roles
 * are mapped) the scope the provider's discovery lists under the groups claim's name, so a
 * provider that sends groups only when asked (Okta, Keycloak, Authentik: "groups") gives them.
 */
export function scopesFor(config: TeamConfig, supported: readonly string[] | undefined): string {
  const asked = config.scopes.split(/\s+/).filter(Boolean);
  if (config.scopesGiven || config.roles.size === 0 || !supported) return asked.join(' ');
  const carrier = supported.find((scope) => scope === config.groupsClaim || scope === 'groups');
  return carrier && !asked.includes(carrier) ? [...asked, carrier].join(' ') : asked.join(' ');
}

/** Roles are mapped from groups, but the provider gives no way to ask for the groups claim. */
export function groupsWarning(
  config: TeamConfig,
  metadata: { scopes_supported?: readonly string[]; claims_supported?: readonly string[] },
): string | undefined {
  if (config.roles.size === 0) return undefined;
  const scopes = scopesFor(config, metadata.scopes_supported).split(' ');
  const claimed = metadata.claims_supported?.includes(config.groupsClaim);
  if (scopes.includes(config.groupsClaim) || scopes.includes('groups') || claimed) return undefined;
  return `Team roles come from the '${config.groupsClaim}' claim (TOOLROW_OIDC_ROLES), but ${config.issuer.href} lists no scope or claim of that name: people may all sign in as viewers. Add the scope your provider puts groups in to TOOLROW_OIDC_SCOPES (now "${scopes.join(' ')}"), or name the claim it uses with TOOLROW_OIDC_GROUPS_CLAIM.`;
}

/** A sign-in whose claims hold no groups claim at all, while roles are mapped from it. */
export function noGroupsClaimWarning(config: TeamConfig, email: string, scopes: string): string {
  return `${email} signed in as viewer: the identity provider sent no '${config.groupsClaim}' claim, so TOOLROW_OIDC_ROLES could not place them. Ask for the scope that carries it in TOOLROW_OIDC_SCOPES (now "${scopes}"), or name the claim with TOOLROW_OIDC_GROUPS_CLAIM.`;
}

export interface TeamSignIn {
  /** What to warn about the provider's groups at start (undefined: nothing), once discovery ran. */
  groupsWarning(): Promise<string | undefined>;
  /** Starts a login: the provider's URL to send the browser to, and the state to bind to it. */
  start(returnTo: string): Promise<{ url: string; state: string }>;
  /** Finishes a login from the provider's redirect; `boundState` is the browser's login cookie. */
  finish(
    callback: URL,
    boundState: string | undefined,
  ): Promise<{
    person: { email: string; name: string; role: TeamRole };
    view: ProviderView;
    returnTo: string;
  }>;
  /**
   * Asks the provider about a person again (their refresh token, else their access token while it
   * lives): what it says of them now, or why they are gone. Throws when the provider cannot be
   * asked (unreachable): nothing is decided then.
   */
  recheck(person: PersonToCheck): Promise<{ view: ProviderView } | { gone: string }>;
}

/** The groups claim as a list of names. */
function groupsOf(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((group): group is string => typeof group === 'string') : [];
}

/** What a token response lets Toolrow ask again with. */
function tokensOf(tokens: oidc.TokenEndpointResponse & oidc.TokenEndpointResponseHelpers) {
  const expiresIn = tokens.expiresIn();
  return {
    ...(tokens.refresh_token ? { refreshToken: tokens.refresh_token } : {}),
    accessToken: tokens.access_token,
    accessExpiresAt: expiresIn === undefined ? null : new Date(Date.now() + expiresIn * 1000),
  };
}

export function createTeamSignIn(
  config: TeamConfig,
  logins: TeamSessionRepository,
  log: (message: string) => void = () => {},
): TeamSignIn {
  const redirectUri = new URL('/auth/callback', config.publicUrl).href;
  let discovered: Promise<oidc.Configuration> | undefined;
  const configuration = () => {
    discovered ??= oidc
      .discovery(config.issuer, config.clientId, config.clientSecret, undefined, {
        execute: [
          // The ID token's signature is checked against the provider's keys too, not only trusted
          // for arriving over the token endpoint's TLS (openid-client skips it unless asked).
          oidc.enableNonRepudiationChecks,
          // A provider on loopback (tests, a local Keycloak) speaks plain HTTP; anywhere else it may not.
          ...(config.issuer.protocol === 'http:' &&
          ['127.0.0.1', 'localhost', '[::1]'].includes(config.issuer.hostname)
            ? [oidc.allowInsecureRequests]
            : []),
        ],
      })
      .catch((error: unknown) => {
        discovered = undefined;
        throw new SignInError(
          `The identity provider at ${config.issuer.href} could not be reached or read: ${(error as Error).message}`,
        );
      });
    return discovered;
  };

  const scopesOf = (provider: oidc.Configuration) =>
    scopesFor(config, provider.serverMetadata().scopes_supported);

  return {
    async groupsWarning() {
      return groupsWarning(config, (await configuration()).serverMetadata());
    },

    async start(returnTo) {
      const provider = await configuration();
      const scope = scopesOf(provider);
      const verifier = oidc.randomPKCECodeVerifier();
      const state = randomBytes(24).toString('base64url');
      const nonce = randomBytes(24).toString('base64url');
      await logins.beginLogin({ state, nonce, verifier, returnTo });
      const url = oidc.buildAuthorizationUrl(provider, {
        redirect_uri: redirectUri,
        scope,
        // A refresh token (to ask again whether a person is still on the team) is only issued
        // for offline_access with consent asked (OpenID Connect Core 11).
        ...(scope.split(' ').includes('offline_access') ? { prompt: 'consent' } : {}),
        code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
        code_challenge_method: 'S256',
        state,
        nonce,
      });
      return { url: url.href, state };
    },

    async finish(callback, boundState) {
      const state = callback.searchParams.get('state');
      const error = callback.searchParams.get('error');
      if (error)
        throw new SignInError(
          `The identity provider refused the sign-in: ${callback.searchParams.get('error_description') ?? error}.`,
        );
      if (!state || !boundState || state !== boundState)
        throw new SignInError(
          'This sign-in was not started in this browser (its state does not match). Start again at /auth/login.',
        );
      const login = await logins.takeLogin(state);
      if (!login)
        throw new SignInError(
          'This sign-in is unknown, used already or too old. Start again at /auth/login.',
        );
      const provider = await configuration();
      let tokens: Awaited<ReturnType<typeof oidc.authorizationCodeGrant>>;
      try {
        tokens = await oidc.authorizationCodeGrant(provider, callback, {
          pkceCodeVerifier: login.verifier,
          expectedState: login.state,
          expectedNonce: login.nonce,
          idTokenExpected: true,
        });
      } catch (cause) {
        throw new SignInError(`The identity provider's answer was refused: ${reasonOf(cause)}.`);
      }
      const idClaims = tokens.claims()!;
      let claims: Record<string, unknown> = { ...idClaims };
      try {
        claims = { ...(await oidc.fetchUserInfo(provider, tokens.access_token, idClaims.sub)), ...idClaims };
      } catch {
        // A provider without userinfo: the ID token's claims are all there is.
      }
      const email = typeof claims.email === 'string' ? claims.email : undefined;
      if (!email)
        throw new SignInError(
          'The identity provider sent no email for this account; Toolrow names people by it.',
        );
      if (claims.email_verified !== true)
        throw new SignInError(
          `The identity provider has not verified ${email}; verify it there, then sign in again.`,
        );
      const name = typeof claims.name === 'string' && claims.name.trim() ? claims.name : email;
      const groups = groupsOf(claims[config.groupsClaim]);
      const role = roleOf(groups, config.roles);
      // Silently a viewer is the failure this says aloud: no groups claim at all came back.
      if (config.roles.size > 0 && !(config.groupsClaim in claims))
        log(noGroupsClaimWarning(config, email, scopesOf(provider)));
      return {
        person: { email, name, role },
        view: { name, role, groups, refreshToken: null, ...tokensOf(tokens) },
        returnTo: login.returnTo,
      };
    },

    async recheck(person) {
      const provider = await configuration();
      let claims: Record<string, unknown>;
      let kept: Partial<ProviderView> = {};
      if (person.refreshToken) {
        let tokens: Awaited<ReturnType<typeof oidc.refreshTokenGrant>>;
        try {
          tokens = await oidc.refreshTokenGrant(provider, person.refreshToken);
        } catch (error) {
          if (error instanceof oidc.ResponseBodyError && error.error === 'invalid_grant')
            return {
              gone: `the identity provider no longer accepts their sign-in (${error.error_description ?? error.error})`,
            };
          throw error;
        }
        kept = tokensOf(tokens);
        claims = { ...(tokens.claims() ?? {}) };
        try {
          claims = {
            ...(await oidc.fetchUserInfo(provider, tokens.access_token, oidc.skipSubjectCheck)),
            ...claims,
          };
        } catch {
          // The refreshed ID token's claims are what there is.
        }
      } else if (
        person.accessToken &&
        person.accessExpiresAt &&
        person.accessExpiresAt.getTime() > Date.now()
      ) {
        try {
          claims = await oidc.fetchUserInfo(provider, person.accessToken, oidc.skipSubjectCheck);
        } catch (error) {
          if (error instanceof oidc.WWWAuthenticateChallengeError || error instanceof oidc.ResponseBodyError)
            return { gone: 'the identity provider no longer answers for their sign-in' };
          throw error;
        }
      } else {
        return {
          gone: 'the identity provider can no longer be asked about them (no refresh token: add offline_access to TOOLROW_OIDC_SCOPES)',
        };
      }
      if (claims.email !== undefined && claims.email !== person.email)
        return { gone: `the identity provider now names them ${String(claims.email)}` };
      const groups = config.groupsClaim in claims ? groupsOf(claims[config.groupsClaim]) : person.groups;
      const name = typeof claims.name === 'string' && claims.name.trim() ? claims.name : person.email;
      return { view: { name, role: roleOf(groups, config.roles), groups, ...kept } };
    },
  };
}

/** The innermost reason openid-client gives (oauth4webapi's, naming the claim: nonce, aud, iss …). */
function reasonOf(error: unknown): string {
  let deepest = error as { message?: string; cause?: unknown };
  let claim: unknown;
  for (let at: unknown = error; at && typeof at === 'object'; at = (at as { cause?: unknown }).cause) {
    if (at instanceof Error) deepest = at;
    else if ('claim' in at) claim = (at as { claim?: unknown }).claim;
  }
  const said = String(deepest.message ?? error).replace(/\.$/, '');
  return typeof claim === 'string' && !said.includes(claim) ? `${said} (${claim})` : said;
}
