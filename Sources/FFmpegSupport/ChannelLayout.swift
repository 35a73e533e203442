internal import CFFmpeg

/// The channel layouts a mix is written in, by FFmpeg's names: mono, stereo, 5.1 (FL FR FC LFE BL BR) and 7.1
/// (FL FR FC LFE BL BR SL SR); another count FFmpeg's default for it.
public enum ChannelLayout {
    public static func name(_ channels: Int) -> String {
        switch channels {
        case 1: "mono"
        case 2: "stereo"
        case 6: "5.1"
        case 8: "7.1"
        default: "\(channels)c"
        }
    }

    /// Sets `layout` to `channels`' layout. The corresponding FFmpeg call is `av_channel_layout_from_string`.
    static func set(_ layout: inout AVChannelLayout, channels: Int) {
        av_channel_layout_uninit(&layout)
        if av_channel_layout_from_string(&layout, name(channels)) < 0 || layout.nb_channels != Int32(channels) {
            av_channel_layout_default(&layout, Int32(channels))
        }
    }
}
