/// An input's configuration record as a smart track takes it: H.264's, whose sets the encoded spans' sit beside under
/// ids of their own, or HEVC's, whose GOPs carry their sets in-band (`HVCConfig`).
enum StreamRecord: Equatable {
    case avc(AVCConfig)
    case hevc(HVCConfig)

    /// `codec`'s (`h264`, `hevc`) record in `bytes`; nil when they are not one.
    init?(_ codec: String, record bytes: [UInt8]) {
        switch codec {
        case "h264": guard let r = AVCConfig(record: bytes) else { return nil }; self = .avc(r)
        case "hevc": guard let r = HVCConfig(record: bytes) else { return nil }; self = .hevc(r)
        default: return nil
        }
    }

    var lengthSize: Int { switch self { case .avc(let r): r.lengthSize; case .hevc(let r): r.lengthSize } }

    /// The id of the encoded spans' sets: H.264's the lowest the inputs' leave free (nil when none is), HEVC's 0
    /// (libx265's own; its sets go in-band).
    var encoderID: Int? { switch self { case .avc(let r): H264.freeID(besides: r); case .hevc: 0 } }

    /// A NAL unit's type in this codec.
    func type(_ unit: ArraySlice<UInt8>) -> Int { switch self { case .avc: H264.type(unit); case .hevc: HEVC.type(unit) } }

    /// Whether a packet's parameter sets, if it has any, are the record's own (a stream whose sets change mid-way is
    /// not copied).
    func holdsItsParameterSets(_ units: [ArraySlice<UInt8>]) -> Bool {
        switch self {
        case .avc(let r): units.allSatisfy { ![7, 8].contains(H264.type($0)) || (r.sps + r.pps).contains(Array($0)) }
        case .hevc(let r): units.allSatisfy { ![HEVC.vps, HEVC.sps, HEVC.pps].contains(HEVC.type($0)) || r.parameterSets.contains(Array($0)) }
        }
    }

    /// Which packets start a closed GOP, from each packet's units' types in decode order (H.264: an IDR picture).
    func closedStarts(_ types: [[Int]]) -> [Bool] {
        switch self {
        case .avc: types.map { $0.contains(5) }
        case .hevc: HEVC.closedStarts(types)
        }
    }

    /// Both inputs' records in one, nil when they cannot be: H.264's sets side by side; HEVC's the first's (every GOP
    /// carries its own in-band); never H.264 beside HEVC.
    func combined(with other: StreamRecord) -> StreamRecord? {
        switch (self, other) {
        case (.avc(let a), .avc(let b)): a.combined(with: b).map(StreamRecord.avc)
        case (.hevc, .hevc): self
        default: nil
        }
    }
}
