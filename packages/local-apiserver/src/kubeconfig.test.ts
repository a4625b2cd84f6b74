import { describe, expect, it } from 'vitest';
import { KubeConfig } from '@kubernetes/client-node';
import { buildKubeconfigYaml, createKubeConfig } from './kubeconfig.js';

describe('createKubeConfig', () => {
  it('points at the URL with skipTLSVerify, a token user and the default namespace', () => {
    const kubeConfig = createKubeConfig('http://127.0.0.1:1234');
    expect(kubeConfig.getCurrentCluster()).toMatchObject({
      server: 'http://127.0.0.1:1234',
      skipTLSVerify: true,
    });
    expect(kubeConfig.getCurrentUser()).toMatchObject({ token: 'local-apiserver' });
    expect(kubeConfig.getContextObject(kubeConfig.getCurrentContext())?.namespace).toBe('default');
  });
});

describe('buildKubeconfigYaml', () => {
  it('loads back into the same cluster and user through client-node', () => {
    const kubeConfig = new KubeConfig();
    kubeConfig.loadFromString(
      buildKubeconfigYaml('http://127.0.0.1:1234', { token: 't', namespace: 'demo' }),
    );
    expect(kubeConfig.getCurrentCluster()).toMatchObject({
      server: 'http://127.0.0.1:1234',
      skipTLSVerify: true,
    });
    expect(kubeConfig.getCurrentUser()).toMatchObject({ token: 't' });
    expect(kubeConfig.getContextObject(kubeConfig.getCurrentContext())?.namespace).toBe('demo');
  });
});
