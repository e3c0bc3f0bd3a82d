/** SPDY/3.1 as kube's streaming protocols use it: frames, header compression, sessions and streams */
export { SPDY3_HEADER_DICTIONARY } from './dictionary';
export { FLAG_FIN, FLAG_UNIDIRECTIONAL, FrameEncoder, FrameParser, FrameType, HeaderCompressor, HeaderDecompressor, RstStatus, SpdyProtocolError, decodeHeaderPairs, encodeHeaderPairs, type SpdyFrame, type SpdyHeaders } from './frames';
export { SpdySession, SpdyStream, type HeaderInit, type SpdySessionOptions } from './spdy-session';
