// Original file: proto/cri/api.proto


export interface GetEventsRequest {
}

export interface GetEventsRequest__Output {
}
