// Original file: proto/cri/api.proto


/**
 * ImageSpec is an internal representation of an image.
 */
export interface ImageSpec {
  /**
   * Container's Image field (e.g. imageID or imageDigest).
   */
  'image'?: (string);
  /**
   * Unstructured key-value map holding arbitrary metadata.
   * ImageSpec Annotations can be used to help the runtime target specific
   * images in multi-arch images.
   */
  'annotations'?: ({[key: string]: string});
}

/**
 * ImageSpec is an internal representation of an image.
 */
export interface ImageSpec__Output {
  /**
   * Container's Image field (e.g. imageID or imageDigest).
   */
  'image': (string);
  /**
   * Unstructured key-value map holding arbitrary metadata.
   * ImageSpec Annotations can be used to help the runtime target specific
   * images in multi-arch images.
   */
  'annotations': ({[key: string]: string});
}
