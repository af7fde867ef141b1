use super::*;

fn tex(address: AddressMode, filter: FilterMode, normalized: bool) -> Texture {
    Texture {
        name: "img".into(),
        buffer: 0,
        width: 640,
        height: 480,
        address,
        filter,
        normalized,
        read: ReadMode::Element,
    }
}

#[test]
fn the_array_is_two_dimensional_with_one_channel_of_the_element_type() {
    let t = tex(AddressMode::Clamp, FilterMode::Point, false);
    let d = array_desc(&t, ElemType::F32).unwrap();
    assert_eq!((d.Width, d.Height, d.Depth), (640, 480, 0));
    assert_eq!(d.NumChannels, 1);
    assert_eq!(d.Format, sys::CUarray_format::CU_AD_FORMAT_FLOAT);
    let d = array_desc(&t, ElemType::U32).unwrap();
    assert_eq!(d.Format, sys::CUarray_format::CU_AD_FORMAT_UNSIGNED_INT32);
    assert!(array_desc(&t, ElemType::F64).is_err());
}

#[test]
fn an_array_within_the_gather_limit_is_made_for_gather() {
    let mut t = tex(AddressMode::Clamp, FilterMode::Point, false);
    let flags = |t: &Texture| array_desc(t, ElemType::F32).unwrap().Flags;
    assert_eq!(flags(&t), sys::CUDA_ARRAY3D_TEXTURE_GATHER);
    t.width = 40_000;
    assert_eq!(
        flags(&t),
        0,
        "past the gather limit the array is made without it"
    );
}

#[test]
fn modes_and_flags_follow_the_lesson() {
    let d = texture_desc(&tex(AddressMode::Clamp, FilterMode::Linear, false));
    assert_eq!(
        d.addressMode,
        [sys::CUaddress_mode::CU_TR_ADDRESS_MODE_CLAMP; 3]
    );
    assert_eq!(d.filterMode, sys::CUfilter_mode::CU_TR_FILTER_MODE_LINEAR);
    assert_eq!(d.flags, sys::CU_TRSF_READ_AS_INTEGER);
    assert_eq!(d.borderColor, [0.0; 4]);
    let d = texture_desc(&tex(AddressMode::Wrap, FilterMode::Point, true));
    assert_eq!(
        d.addressMode[0],
        sys::CUaddress_mode::CU_TR_ADDRESS_MODE_WRAP
    );
    assert_eq!(d.filterMode, sys::CUfilter_mode::CU_TR_FILTER_MODE_POINT);
    assert_eq!(
        d.flags,
        sys::CU_TRSF_READ_AS_INTEGER | sys::CU_TRSF_NORMALIZED_COORDINATES
    );
}

#[test]
fn the_resource_names_the_array() {
    let r = resource_desc(std::ptr::null_mut());
    assert_eq!(r.resType, sys::CUresourcetype::CU_RESOURCE_TYPE_ARRAY);
    assert_eq!(r.flags, 0);
}
