// One route matcher for both HTTP APIs (ingest's POST and the read API's GETs).
import { describe, expect, it } from '@jest/globals';
import { matchRoute } from '#core/http.ts';

const routes = [
  { method: 'POST', path: '/hooks/:space/ingest' },
  { method: 'GET', path: '/api/spaces/:space/export.:format' },
  { method: 'GET', path: '/api/spaces/:space/runs/:id' },
];

describe('matching a request to a route', () => {
  it('takes the named segments, percent-decoded, and a segment prefix', () => {
    expect(matchRoute(routes, 'POST', '/hooks/a%2Fb/ingest')).toMatchObject({
      kind: 'route',
      params: { space: 'a/b' },
    });
    expect(matchRoute(routes, 'GET', '/api/spaces/S/export.csv')).toMatchObject({
      kind: 'route',
      params: { space: 'S', format: 'csv' },
    });
  });

  it('matches HEAD as GET', () => {
    expect(matchRoute(routes, 'HEAD', '/api/spaces/S/runs/r1')).toMatchObject({ kind: 'route', params: { id: 'r1' } });
  });

  it('names the methods a path is served under when another is used', () => {
    expect(matchRoute(routes, 'GET', '/hooks/S/ingest')).toEqual({
      kind: 'wrong-method',
      parts: ['hooks', 'S', 'ingest'],
      allow: 'POST',
    });
  });

  it('tells a path no route has from a malformed percent-encoding', () => {
    expect(matchRoute(routes, 'POST', '/hooks/S/other')).toMatchObject({ kind: 'no-route' });
    expect(matchRoute(routes, 'GET', '/api/spaces/S/export.')).toMatchObject({ kind: 'no-route' });
    expect(matchRoute(routes, 'POST', '/hooks/%ZZ/ingest')).toEqual({ kind: 'bad-path' });
  });
});
