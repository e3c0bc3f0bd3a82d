/**
 * The streaming protocols of exec, attach and port-forward (kubelet's cri/streaming), for runtimes
 * without a streaming server of their own: SPDY/3.1 (spdy/) and WebSocket (websocket/) framing,
 * remotecommand and portforward over them, and the token-keyed server.
 */
export { StreamingServer, StreamingRequestError, type AttachStreamRequest, type ExecStreamRequest, type PortForwardStreamRequest, type StreamingBackend, type StreamingServerOptions } from './streaming-server';
export { ResizeEvents, type CommandResult, type CommandStreams, type TerminalSize } from './remotecommand';
export { forwardTcp } from './tcp-forward';
