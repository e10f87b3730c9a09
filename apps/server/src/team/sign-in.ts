// Sign-in through the team's OpenID provider with openid-client (the certified relying party):
// discovery from the issuer, the authorization code flow with PKCE, state and nonce; the ID token
// is checked by openid-client (issuer, audience, nonce, expiry, signature; `none` is refused), the
// person's claims completed from userinfo. A login in flight lives in the state store, so any
// instance may finish it.
import { randomBytes } from 'node:crypto';
import type { TeamRole, TeamSessionRepository } from '@toolrow/state';
import * as oidc from 'openid-client';
import { roleOf, type TeamConfig } from './config.ts';

/** A sign-in refused: the message says why, in words for the person at the browser. */
export class SignInError extends Error {
  override name = 'SignInError';
}

export interface TeamSignIn {
  /** Starts a login: the provider's URL to send the browser to, and the state to bind to it. */
  start(returnTo: string): Promise<{ url: string; state: string }>;
  /** Finishes a login from the provider's redirect; `boundState` is the browser's login cookie. */
  finish(
    callback: URL,
    boundState: string | undefined,
  ): Promise<{ person: { email: string; name: string; role: TeamRole }; returnTo: string }>;
}

export function createTeamSignIn(config: TeamConfig, logins: TeamSessionRepository): TeamSignIn {
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

  return {
    async start(returnTo) {
      const provider = await configuration();
      const verifier = oidc.randomPKCECodeVerifier();
      const state = randomBytes(24).toString('base64url');
      const nonce = randomBytes(24).toString('base64url');
      await logins.beginLogin({ state, nonce, verifier, returnTo });
      const url = oidc.buildAuthorizationUrl(provider, {
        redirect_uri: redirectUri,
        scope: config.scopes,
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
      return {
        person: { email, name, role: roleOf(claims[config.groupsClaim], config.roles) },
        returnTo: login.returnTo,
      };
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
