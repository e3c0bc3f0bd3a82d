import path from 'node:path';
import t from 'tap';
import { isNotFound } from '../../src/client/errors';
import { RESOURCES } from '../../src/client/resources';
import type { KubeObject } from '../../src/client/types';
import { namespaceActive } from '../../src/controllers/serviceaccount/serviceaccounts-controller';
import { randomSuffix } from '../../src/controllers/serviceaccount/legacy-token';
import { SA_NAME_ANNOTATION, SA_UID_ANNOTATION, SERVICE_ACCOUNT_TOKEN_TYPE } from '../../src/controllers/serviceaccount/tokens-controller';
import { kubectlFor, missingKubectl, startApiServer, waitFor } from '../e2e/harness';
import { startControllers } from '../helpers/controllers';

t.test('terminating namespaces get no accounts', async (t) => {
  t.ok(namespaceActive({ metadata: { name: 'a' }, status: { phase: 'Active' } }));
  t.notOk(namespaceActive({ metadata: { name: 'a' }, status: { phase: 'Terminating' } }));
  t.notOk(namespaceActive({ metadata: { name: 'a', deletionTimestamp: '2020-01-01T00:00:00Z' } }));
  t.notOk(namespaceActive(undefined));
});

t.test('token secret names use kube\'s alphabet', async (t) => {
  t.match(randomSuffix(), /^[bcdfghjklmnpqrstvwxz2456789]{5}$/);
  t.equal(randomSuffix(5, () => 0), 'bbbbb');
});

t.test('default service accounts and their token secrets', { skip: missingKubectl('1.32') }, async (t) => {
  const server = await startApiServer(t);
  const { client } = startControllers(t, server, ['serviceaccount', 'serviceaccount-token'], {
    serviceAccountPrivateKeyFile: path.join(server.dataDir, 'pki', 'sa.key'),
  });
  const getSa = (ns: string, name: string) => client.get(RESOURCES.serviceAccounts, ns, name).catch((err: unknown) => (isNotFound(err) ? undefined : Promise.reject(err)));

  await client.create(RESOURCES.namespaces, undefined, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'team' } });
  const first = await waitFor('the default account of a new namespace', () => getSa('team', 'default'));
  t.ok(first.metadata?.uid);

  await client.delete(RESOURCES.serviceAccounts, 'team', 'default');
  const again = await waitFor('the default account to come back', async () => {
    const sa = await getSa('team', 'default');
    return sa && sa.metadata?.uid !== first.metadata?.uid ? sa : undefined;
  });
  t.not(again.metadata?.uid, first.metadata?.uid, 'recreated');

  // a token secret for a new account, referenced from it
  const builder = await client.create(RESOURCES.serviceAccounts, 'team', { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'builder' } });
  const withRef = await waitFor('the account to reference its token', async () => {
    const sa = await getSa('team', 'builder');
    return ((sa?.secrets as { name: string }[] | undefined) ?? []).length > 0 ? sa : undefined;
  });
  const secretName = (withRef.secrets as { name: string }[])[0].name;
  t.match(secretName, /^builder-token-[a-z0-9]{5}$/);
  const secret = await client.get(RESOURCES.secrets, 'team', secretName);
  t.equal(secret.type, SERVICE_ACCOUNT_TOKEN_TYPE);
  t.equal(secret.metadata?.annotations?.[SA_NAME_ANNOTATION], 'builder');
  t.equal(secret.metadata?.annotations?.[SA_UID_ANNOTATION], builder.metadata?.uid);
  const data = secret.data as Record<string, string>;
  t.equal(Buffer.from(data.namespace, 'base64').toString(), 'team');
  t.match(Buffer.from(data['ca.crt'], 'base64').toString(), /BEGIN CERTIFICATE/);
  const token = Buffer.from(data.token, 'base64').toString();

  // the token authenticates
  const kubectl = kubectlFor(t, '1.32', server, { token });
  const whoami = await kubectl.ok(['auth', 'whoami']);
  t.match(whoami, /system:serviceaccount:team:builder/);

  // one token only, even after the account changes
  await client.patch(RESOURCES.serviceAccounts, 'team', 'builder', 'merge', { metadata: { labels: { touched: 'yes' } } });
  await waitFor('the label', async () => (await getSa('team', 'builder'))?.metadata?.labels?.touched === 'yes');
  const tokens = async () => (await client.list(RESOURCES.secrets, 'team')).items.filter((s: KubeObject) => s.metadata?.annotations?.[SA_NAME_ANNOTATION] === 'builder');
  t.equal((await tokens()).length, 1, 'one token secret');

  // a deleted token secret is replaced; a deleted account's token secrets go
  await client.delete(RESOURCES.secrets, 'team', secretName);
  await waitFor('a new token secret', async () => (await tokens()).some((s) => s.metadata?.name !== secretName));
  await waitFor('the deleted secret unreferenced', async () => {
    const refs = ((await getSa('team', 'builder'))?.secrets as { name: string }[] | undefined) ?? [];
    return refs.length === 1 && refs[0].name !== secretName;
  });

  // a token secret made by hand gets its token
  await client.create(RESOURCES.secrets, 'team', {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: 'builder-manual', annotations: { [SA_NAME_ANNOTATION]: 'builder' } },
    type: SERVICE_ACCOUNT_TOKEN_TYPE,
  });
  const manual = await waitFor('the manual secret filled', async () => {
    const sec = await client.get(RESOURCES.secrets, 'team', 'builder-manual');
    return (sec.data as Record<string, string> | undefined)?.token ? sec : undefined;
  });
  t.equal(manual.metadata?.annotations?.[SA_UID_ANNOTATION], builder.metadata?.uid, 'the uid annotation added');
  // a token secret of an account that does not exist is deleted
  await client.create(RESOURCES.secrets, 'team', {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: 'nobody-token', annotations: { [SA_NAME_ANNOTATION]: 'nobody' } },
    type: SERVICE_ACCOUNT_TOKEN_TYPE,
  });
  await waitFor('the orphan token secret deleted', () => client.get(RESOURCES.secrets, 'team', 'nobody-token').then(() => false, (err: unknown) => isNotFound(err)));
  await client.delete(RESOURCES.serviceAccounts, 'team', 'builder');
  await waitFor('the token secrets of the deleted account to go', async () => (await tokens()).length === 0);
  t.pass('token secrets follow their account');
});
