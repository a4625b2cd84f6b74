import { describe, expect, it } from 'vitest';
import { wantsPartialMetadata } from './partial-metadata.js';

describe('wantsPartialMetadata', () => {
  it('recognises the metadata-only Accept headers of lists and gets', () => {
    expect(
      wantsPartialMetadata(
        'application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json',
      ),
    ).toBe(true);
    expect(wantsPartialMetadata('application/json; as=PartialObjectMetadata; g=meta.k8s.io; v=v1')).toBe(
      true,
    );
  });

  it('answers whole objects to other groups and versions, Tables and plain JSON', () => {
    expect(
      wantsPartialMetadata('application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1beta1'),
    ).toBe(false);
    expect(wantsPartialMetadata('application/json;as=Table;v=v1;g=meta.k8s.io')).toBe(false);
    expect(wantsPartialMetadata('application/json')).toBe(false);
    expect(wantsPartialMetadata(undefined)).toBe(false);
  });
});
