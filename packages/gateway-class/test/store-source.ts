// The glue an application writes to feed GatewayClassController from @ingresskit/store: a handful
// of one-line reads, plus IngressKitParameters from a separate informer.
import type { Store } from '@ingresskit/store';
import { PARAMETERS_GROUP, PARAMETERS_KIND, type GatewayClassSource } from '../src/index.js';
import type { ParametersInformer } from './parameters-informer.js';

export function createStoreSource(store: Store, parameters: ParametersInformer): GatewayClassSource {
  return {
    listGatewayClasses: () => store.snapshot().gatewayClasses.values(),
    listGatewaysForClass: (name) => store.gatewaysForGatewayClass(name),
    listCustomResourceDefinitions: () => store.snapshot().customResourceDefinitions.values(),
    getParametersObject: (ref) =>
      ref.group === PARAMETERS_GROUP && ref.kind === PARAMETERS_KIND
        ? parameters.get(ref.name)
        : store.snapshot().configMaps.get(`${ref.namespace}/${ref.name}`),
    subscribe(listener) {
      store.on('change', listener);
      const unsubscribeParameters = parameters.subscribe(listener);
      return () => {
        store.off('change', listener);
        unsubscribeParameters();
      };
    },
    hasSynced: () => store.hasSynced(),
  };
}
