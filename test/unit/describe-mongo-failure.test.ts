/**
 * The one line start-up and `npm run indexes` print when MongoDB cannot be used: the host as the
 * driver tried it (or as the URI names it) and the cause, never a credential. The errors are the
 * driver's own classes, built the way the driver builds them (a server selection failure carries
 * the topology description, whose server descriptions carry each server's last error), and one is
 * produced by the driver itself against a port where nothing listens.
 */
import { createRequire } from 'node:module';
import { MongoClient, MongoError, MongoNetworkError, MongoServerError, MongoServerSelectionError, MongoTopologyClosedError, TopologyType } from 'mongodb';
import { describe, expect, it } from 'vitest';
import { freePort } from '../helpers/ports.js';
import { describeMongoFailure, hostsOfUri } from '../../src/storage/mongodb/describe-failure.js';
import { translateMongoError } from '../../src/storage/mongodb/errors.js';

// The driver does not export these classes from its entry point; its sdam modules do.
const require = createRequire(import.meta.url);
type Description = object;
const { ServerDescription } = require('mongodb/lib/sdam/server_description.js') as {
  ServerDescription: new (address: string, hello?: Record<string, unknown>, options?: { error?: MongoError }) => Description;
};
const { TopologyDescription } = require('mongodb/lib/sdam/topology_description.js') as {
  TopologyDescription: new (type: string, servers: Map<string, Description>) => Description;
};

/** What server selection throws after `serverSelectionTimeoutMS`, each server with its last heartbeat error. */
function selectionFailure(servers: Record<string, MongoError | undefined>, hello?: Record<string, unknown>): MongoServerSelectionError {
  const descriptions = new Map(Object.entries(servers).map(([address, error]) => [address, new ServerDescription(address, hello, error ? { error } : {})]));
  const topology = new TopologyDescription(TopologyType.Unknown, descriptions);
  return new MongoServerSelectionError('Server selection timed out after 5000 ms', topology as never);
}

/** A socket error as Node raises it, wrapped as the driver's connect does (connect.js: its message, the error as cause). */
function networkError(fields: { message: string; code: string; [field: string]: unknown }): MongoNetworkError {
  const cause = Object.assign(new Error(fields.message), fields);
  return new MongoNetworkError(cause.message, { cause });
}

/** As the storage hands it over: translated at the boundary, the driver's error as cause. */
const translated = (error: unknown) => translateMongoError(error, 'connect');

const URI = 'mongodb://calendar:s3cret@127.0.0.1:27017/calendar?authSource=admin';

describe('describeMongoFailure', () => {
  it('connection refused: the server tried and ECONNREFUSED', () => {
    const refused = networkError({
      message: 'connect ECONNREFUSED 127.0.0.1:27017',
      code: 'ECONNREFUSED',
      errno: -111,
      syscall: 'connect',
      address: '127.0.0.1',
      port: 27017,
    });
    const error = translated(selectionFailure({ '127.0.0.1:27017': refused }));
    expect(describeMongoFailure(error, URI)).toBe('cannot reach MongoDB at 127.0.0.1:27017: connection refused (ECONNREFUSED)');
  });

  it('names the port the driver really tried, from its own error against a closed port', async () => {
    const port = await freePort();
    const uri = `mongodb://calendar:s3cret@127.0.0.1:${port}/calendar`;
    const client = new MongoClient(uri, { serverSelectionTimeoutMS: 300 });
    const error: unknown = await client.connect().then(
      () => null,
      (e: unknown) => e,
    );
    await client.close();
    expect(error).toBeInstanceOf(MongoServerSelectionError);
    expect(describeMongoFailure(translated(error), uri)).toBe(`cannot reach MongoDB at 127.0.0.1:${port}: connection refused (ECONNREFUSED)`);
  });

  it('authentication failed: the host from the URI (SRV), never the user or password', () => {
    const error = new MongoServerError({ ok: 0, errmsg: 'Authentication failed.', code: 18, codeName: 'AuthenticationFailed' });
    const uri = 'mongodb+srv://calendar:p%40ss%3Aword@cluster0.example.net/calendar?retryWrites=true&w=majority';
    const line = describeMongoFailure(translated(error), uri);
    expect(line).toBe('MongoDB at cluster0.example.net (SRV) rejected the credentials of MONGODB_URI: authentication failed (AuthenticationFailed, code 18)');
  });

  it('DNS: a host that does not resolve, and an SRV record that does not exist', () => {
    const notFound = networkError({
      message: 'getaddrinfo ENOTFOUND db.example.net',
      code: 'ENOTFOUND',
      errno: -3008,
      syscall: 'getaddrinfo',
      hostname: 'db.example.net',
    });
    expect(describeMongoFailure(translated(selectionFailure({ 'db.example.net:27017': notFound })), 'mongodb://db.example.net/calendar')).toBe(
      'cannot reach MongoDB at db.example.net:27017: host not found (DNS ENOTFOUND for db.example.net)',
    );
    // MongoClient.connect resolves the SRV record with dns.promises before any topology exists.
    const srv = Object.assign(new Error('querySrv ENOTFOUND _mongodb._tcp.cluster0.example.net'), {
      code: 'ENOTFOUND',
      syscall: 'querySrv',
      hostname: '_mongodb._tcp.cluster0.example.net',
    });
    expect(describeMongoFailure(translated(srv), 'mongodb+srv://calendar:s3cret@cluster0.example.net/calendar')).toBe(
      'cannot reach MongoDB at cluster0.example.net (SRV): DNS SRV lookup failed (ENOTFOUND for _mongodb._tcp.cluster0.example.net)',
    );
  });

  it('TLS: a rejected certificate', () => {
    const expired = networkError({ message: 'certificate has expired', code: 'CERT_HAS_EXPIRED' });
    const error = translated(selectionFailure({ 'db1.example.net:27017': expired, 'db2.example.net:27017': undefined }));
    expect(describeMongoFailure(error, 'mongodb://calendar:s3cret@db1.example.net,db2.example.net/?tls=true&replicaSet=rs0')).toBe(
      'cannot reach MongoDB at db1.example.net:27017: TLS certificate rejected (CERT_HAS_EXPIRED)',
    );
  });

  it('server selection timeout with servers that answered but none suitable', () => {
    const secondary = { ok: 1, isWritablePrimary: false, secondary: true, setName: 'rs0', hosts: ['db1:27017'], minWireVersion: 0, maxWireVersion: 21 };
    const error = translated(selectionFailure({ 'db1:27017': undefined }, secondary));
    expect(describeMongoFailure(error, 'mongodb://db1/?replicaSet=rs0')).toBe(
      'cannot reach MongoDB at db1:27017: no suitable server answered within the server selection timeout (MongoServerSelectionError: Server selection timed out after 5000 ms)',
    );
  });

  it('an unusable URI: the driver message without the credentials it may quote', () => {
    const apiError = catchError(() => new MongoClient('mongodb+srv://calendar:s3cret@cluster0.example.net/?directConnection=true'));
    expect(apiError.name).toBe('MongoAPIError');
    // As index-sync.ts wraps a failed MongoClient construction.
    const wrapped = new Error('Invalid MongoDB connection string (MongoAPIError)', { cause: apiError });
    expect(describeMongoFailure(wrapped, 'mongodb+srv://calendar:s3cret@cluster0.example.net/?directConnection=true')).toBe(
      'MONGODB_URI cannot be used (cluster0.example.net (SRV)): MongoAPIError: SRV URI does not support directConnection',
    );
    // The parser quotes a malformed user name; nothing of it may be printed, nor a host guessed.
    const uri = 'mongodb://cal/endar:s3cret@db.example.net';
    const parseError = catchError(() => new MongoClient(uri));
    expect(parseError.message).toContain('cal/endar');
    const line = describeMongoFailure(parseError, uri);
    expect(line).toBe('MONGODB_URI cannot be used: MongoParseError: Username contains unescaped characters ***');
  });

  it('a topology closed under an operation: the host from the URI, no stack', () => {
    expect(describeMongoFailure(translated(new MongoTopologyClosedError()), URI)).toBe(
      'MongoDB at 127.0.0.1:27017 failed: MongoTopologyClosedError: Topology is closed',
    );
  });

  it('never prints the password nor the user, whatever the error quotes', () => {
    const quoting = new MongoServerError({ ok: 0, errmsg: `bad option in ${URI} for calendar`, code: 2, codeName: 'BadValue' });
    const line = describeMongoFailure(quoting, URI);
    expect(line).not.toContain('s3cret');
    expect(line).not.toContain('calendar:');
    expect(line).toMatch(/^MongoDB at 127\.0\.0\.1:27017 refused the operation \(BadValue, code 2\): /);
    expect(line).not.toContain('\n');
  });
});

describe('hostsOfUri', () => {
  it('names host:port (default port filled in), SRV names and sockets', () => {
    expect(hostsOfUri('mongodb://a.example.net:27018,b.example.net/calendar?replicaSet=rs0')).toBe('a.example.net:27018, b.example.net:27017');
    expect(hostsOfUri('mongodb://user:pw@[::1]:27019/')).toBe('[::1]:27019');
    expect(hostsOfUri('mongodb+srv://user:pw@cluster0.example.net/calendar?w=majority')).toBe('cluster0.example.net (SRV)');
    expect(hostsOfUri('mongodb://%2Ftmp%2Fmongodb-27017.sock')).toBe('/tmp/mongodb-27017.sock');
  });

  it('names nothing from a URI the driver would refuse, where part of a password could pass for a host', () => {
    expect(hostsOfUri('mongodb://user:p@ss@db.example.net')).toBeNull();
    expect(hostsOfUri('mongodb://user:12?34@db.example.net')).toBeNull();
    expect(hostsOfUri('mongodb://user:12/34@db.example.net')).toBeNull();
    expect(hostsOfUri('mongodb+srv://user:pw@cluster0.example.net:27017')).toBeNull();
    expect(hostsOfUri('postgres://db.example.net')).toBeNull();
  });
});

function catchError(run: () => unknown): Error {
  try {
    run();
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected an error');
}
