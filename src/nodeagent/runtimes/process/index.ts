/** The process runtime's public surface: a RuntimeService and an ImageService over one state dir */
export { ProcessRuntimeService, PROCESS_RUNTIME_NAME, defaultHostIP, type ProcessRuntimeOptions } from './process-runtime-service';
export { ProcessImageService, processImageRef, type ProcessImageServiceOptions } from './process-image-service';
