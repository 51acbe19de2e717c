/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * badinput_table.h - the rows of badinput_rows.h: REFUSE(name, builder,
 * position of the offending descriptor, reason) must be refused with
 * -EINVAL and that enum th_nic_refusal reason, ACCEPT(name, builder)
 * accepted.  No include guard: the includer defines
 * REFUSE and ACCEPT, then includes this once where the rows belong.
 */
REFUSE(unknown_opcode, bad_opcode, 0, TH_NIC_REFUSE_OPCODE);
REFUSE(opcode_255, bad_opcode_255, 0, TH_NIC_REFUSE_OPCODE);
REFUSE(reserved_header_byte, bad_rsvd0, 0, TH_NIC_REFUSE_RESERVED);
REFUSE(unknown_flag, bad_flag, 0, TH_NIC_REFUSE_FLAGS);
REFUSE(unknown_top_flag, bad_flag_top, 0, TH_NIC_REFUSE_FLAGS);
REFUSE(trigger_counter_out_of_range, bad_trig_ct, 0, TH_NIC_REFUSE_TRIGGER);
REFUSE(threshold_on_later_descriptor, bad_second_threshold, 1, TH_NIC_REFUSE_TRIGGER);
REFUSE(cookie_on_later_descriptor, bad_second_cookie, 1, TH_NIC_REFUSE_TRIGGER);
REFUSE(trigger_on_later_descriptor, bad_second_trig_ct, 1, TH_NIC_REFUSE_TRIGGER);
REFUSE(completion_counter_out_of_range, bad_comp_ct_range, 0, TH_NIC_REFUSE_COUNTER);
REFUSE(completion_counter_without_flag, bad_comp_ct_noflag, 0, TH_NIC_REFUSE_COUNTER);
REFUSE(remote_flag_on_put, bad_remote_on_put, 0, TH_NIC_REFUSE_FLAGS);
REFUSE(remote_counter_on_copy, bad_remote_ct_on_copy, 0, TH_NIC_REFUSE_FLAGS);
REFUSE(remote_counter_on_get, bad_remote_ct_on_get, 0, TH_NIC_REFUSE_FLAGS);
REFUSE(chain_without_end, bad_no_end, 1, TH_NIC_REFUSE_CHAIN);
REFUSE(chain_longer_than_max, bad_too_long, BAD_CHAIN - 1, TH_NIC_REFUSE_CHAIN);
REFUSE(bad_descriptor_in_middle, bad_in_middle, 3, TH_NIC_REFUSE_RESERVED);
REFUSE(put_unknown_local_key, bad_put_lkey, 0, TH_NIC_REFUSE_LKEY);
REFUSE(put_other_vports_key_as_local, bad_put_lkey_peer, 0, TH_NIC_REFUSE_LKEY);
REFUSE(put_local_key_zero, bad_put_lkey_zero, 0, TH_NIC_REFUSE_LKEY);
REFUSE(put_past_local_mr, bad_put_range, 0, TH_NIC_REFUSE_RANGE);
REFUSE(put_offset_wraps, bad_put_wrap, 0, TH_NIC_REFUSE_RANGE);
REFUSE(put_offset_plus_len_wraps, bad_put_len_wrap, 0, TH_NIC_REFUSE_RANGE);
REFUSE(put_node_out_of_range, bad_put_node, 0, TH_NIC_REFUSE_ADDRESS);
REFUSE(put_vport_out_of_range, bad_put_vport, 0, TH_NIC_REFUSE_ADDRESS);
REFUSE(put_longer_than_max_mr, bad_put_len_max, 0, TH_NIC_REFUSE_RANGE);
REFUSE(put_remote_offset_wraps, bad_put_roff_wrap, 0, TH_NIC_REFUSE_ADDRESS);
REFUSE(put_reserved_word, bad_put_rsvd0, 0, TH_NIC_REFUSE_RESERVED);
REFUSE(put_reserved, bad_put_rsvd, 0, TH_NIC_REFUSE_RESERVED);
REFUSE(put_remote_counter_without_flag, bad_put_remote_ct_noflag, 0, TH_NIC_REFUSE_COUNTER);
REFUSE(put_remote_counter_out_of_range, bad_put_remote_ct_range, 0, TH_NIC_REFUSE_COUNTER);
REFUSE(get_into_readonly_mr, bad_get_readonly, 0, TH_NIC_REFUSE_LKEY);
REFUSE(copy_into_readonly_mr, bad_copy_dst_ro, 0, TH_NIC_REFUSE_LKEY);
REFUSE(copy_past_source_mr, bad_copy_src_range, 0, TH_NIC_REFUSE_RANGE);
REFUSE(copy_destination_past_mr, bad_copy_dst_range, 0, TH_NIC_REFUSE_RANGE);
REFUSE(copy_destination_wraps, bad_copy_dst_wrap, 0, TH_NIC_REFUSE_RANGE);
REFUSE(copy_reserved, bad_copy_rsvd, 0, TH_NIC_REFUSE_RESERVED);
REFUSE(inline_length_zero, bad_inline_len0, 0, TH_NIC_REFUSE_INLINE);
REFUSE(inline_length_33, bad_inline_len33, 0, TH_NIC_REFUSE_INLINE);
REFUSE(inline_bytes_past_length, bad_inline_tail, 0, TH_NIC_REFUSE_INLINE);
REFUSE(inline_local_with_node, bad_inline_local_node, 0, TH_NIC_REFUSE_ADDRESS);
REFUSE(inline_into_readonly_mr, bad_inline_ro, 0, TH_NIC_REFUSE_LKEY);
REFUSE(inline_past_mr, bad_inline_range, 0, TH_NIC_REFUSE_RANGE);
REFUSE(inline_remote_counter_on_local, bad_inline_remote_ct_local, 0, TH_NIC_REFUSE_FLAGS);
REFUSE(inline_remote_node_out_of_range, bad_inline_remote_node, 0, TH_NIC_REFUSE_ADDRESS);
REFUSE(inline_reserved, bad_inline_rsvd, 0, TH_NIC_REFUSE_RESERVED);
REFUSE(inline_reserved_tail, bad_inline_rsvd_tail, 0, TH_NIC_REFUSE_RESERVED);
REFUSE(inline_local_with_remote_key, bad_inline_local_rkey, 0, TH_NIC_REFUSE_ADDRESS);
REFUSE(inline_remote_with_local_key, bad_inline_remote_lkey, 0, TH_NIC_REFUSE_ADDRESS);
REFUSE(reduce_unknown_op, bad_reduce_op, 0, TH_NIC_REFUSE_ALU);
REFUSE(reduce_unknown_dtype, bad_reduce_dtype, 0, TH_NIC_REFUSE_ALU);
REFUSE(reduce_band_on_float64, bad_reduce_band_float, 0, TH_NIC_REFUSE_ALU);
REFUSE(reduce_bor_on_float64, bad_reduce_bor_float, 0, TH_NIC_REFUSE_ALU);
REFUSE(reduce_bxor_on_float32, bad_reduce_bxor_float32, 0, TH_NIC_REFUSE_ALU);
REFUSE(reduce_zero_sources, bad_reduce_nsrc0, 0, TH_NIC_REFUSE_ALU);
REFUSE(reduce_eight_sources, bad_reduce_nsrc8, 0, TH_NIC_REFUSE_ALU);
REFUSE(reduce_accumulate_with_seven, bad_reduce_acc7, 0, TH_NIC_REFUSE_ALU);
REFUSE(reduce_unknown_rflag, bad_reduce_rflags, 0, TH_NIC_REFUSE_ALU);
REFUSE(reduce_unused_key_set, bad_reduce_unused_key, 0, TH_NIC_REFUSE_RESERVED);
REFUSE(reduce_unused_offset_set, bad_reduce_unused_off, 0, TH_NIC_REFUSE_RESERVED);
REFUSE(reduce_into_readonly_mr, bad_reduce_dst_ro, 0, TH_NIC_REFUSE_LKEY);
REFUSE(reduce_source_past_mr, bad_reduce_src_range, 0, TH_NIC_REFUSE_RANGE);
REFUSE(reduce_destination_past_mr, bad_reduce_dst_range, 0, TH_NIC_REFUSE_RANGE);
REFUSE(reduce_count_past_mr, bad_reduce_count_wrap, 0, TH_NIC_REFUSE_RANGE);
REFUSE(reduce_source_on_other_vport, bad_reduce_src_peer_key, 0, TH_NIC_REFUSE_LKEY);
REFUSE(reduce_misaligned_destination, bad_reduce_dst_align, 0, TH_NIC_REFUSE_ALIGN);
REFUSE(reduce_misaligned_source, bad_reduce_src_align, 0, TH_NIC_REFUSE_ALIGN);
REFUSE(reduce_partial_overlap, bad_reduce_overlap, 0, TH_NIC_REFUSE_OVERLAP);
REFUSE(reduce_strided_past_mr, bad_strided_range, 0, TH_NIC_REFUSE_RANGE);
REFUSE(reduce_strided_second_key, bad_strided_key1, 0, TH_NIC_REFUSE_RESERVED);
REFUSE(reduce_strided_stride_wraps, bad_strided_wrap, 0, TH_NIC_REFUSE_RANGE);
REFUSE(counter_op_out_of_range, bad_ct_range, 0, TH_NIC_REFUSE_COUNTER);
REFUSE(counter_op_index_ffff, bad_ct_range_max, 0, TH_NIC_REFUSE_COUNTER);
REFUSE(counter_op_reserved, bad_ct_rsvd, 0, TH_NIC_REFUSE_RESERVED);
REFUSE(notify_reserved, bad_notify_rsvd, 0, TH_NIC_REFUSE_RESERVED);
REFUSE(nop_with_operands, bad_nop_operand, 0, TH_NIC_REFUSE_RESERVED);
REFUSE(rearm_not_last, bad_rearm_not_last, 0, TH_NIC_REFUSE_REARM);
REFUSE(rearm_stride_zero, bad_rearm_stride0, 1, TH_NIC_REFUSE_REARM);
REFUSE(rearm_reserved, bad_rearm_rsvd, 0, TH_NIC_REFUSE_RESERVED);
ACCEPT(put_of_zero_bytes_at_mr_end, ok_put_len0);
ACCEPT(reduce_of_zero_elements, ok_reduce_count0);
ACCEPT(inline_of_32_bytes, ok_inline32);
ACCEPT(inline_remote_with_last_counter, ok_inline_remote);
ACCEPT(reduce_seven_sources, seven_sources);
ACCEPT(reduce_accumulate_six_sources, ok_reduce_acc6);
ACCEPT(reduce_destination_is_a_source, ok_reduce_dst_is_src);
ACCEPT(reduce_strided, strided1);
ACCEPT(chain_of_max_length, ok_max_chain);
ACCEPT(put_to_highest_vport, ok_far_address);
ACCEPT(pending_on_last_counter, ok_pending_last_ct);
ACCEPT(every_opcode_in_one_chain, ok_every_op);
ACCEPT(chain_ending_in_rearm, ok_rearm);
/*
 * Boundaries (issue 34): each range and limit rule at exact fit
 * (accepted), one unit past (refused, with its reason) and wrapping
 * (refused).  Rows above that already sit on an edge are not repeated:
 * put_past_local_mr (one byte past), put_offset_wraps, inline_past_mr
 * (one byte past), inline_of_32_bytes, inline_length_33,
 * chain_of_max_length, chain_longer_than_max, put_node_out_of_range,
 * put_to_highest_vport, put_vport_out_of_range, pending_on_last_counter
 * (threshold 2^64 - 1), reduce_seven_sources, reduce_eight_sources and
 * the accumulate pair, counter_op_out_of_range, counter_op_index_ffff.
 */
ACCEPT(put_local_exact_fit, ok_put_local_fit);
REFUSE(put_local_length_one_past, bad_put_local_len_past, 0, TH_NIC_REFUSE_RANGE);
ACCEPT(put_remote_range_ends_at_u64_max, ok_put_remote_end_max);
REFUSE(put_remote_range_one_past_u64_max, bad_put_remote_one_past, 0, TH_NIC_REFUSE_ADDRESS);
ACCEPT(put_to_last_node, ok_put_last_node);
ACCEPT(put_remote_counter_last, ok_put_remote_ct_last);
REFUSE(put_remote_counter_ffff, bad_put_remote_ct_ffff, 0, TH_NIC_REFUSE_COUNTER);
ACCEPT(get_local_exact_fit, ok_get_local_fit);
REFUSE(get_local_one_past, bad_get_local_one_past, 0, TH_NIC_REFUSE_RANGE);
REFUSE(get_local_wraps, bad_get_local_wrap, 0, TH_NIC_REFUSE_RANGE);
ACCEPT(get_remote_range_ends_at_u64_max, ok_get_remote_end_max);
REFUSE(get_remote_range_one_past_u64_max, bad_get_remote_one_past, 0, TH_NIC_REFUSE_ADDRESS);
REFUSE(get_node_out_of_range, bad_get_node, 0, TH_NIC_REFUSE_ADDRESS);
REFUSE(get_vport_out_of_range, bad_get_vport, 0, TH_NIC_REFUSE_ADDRESS);
ACCEPT(copy_source_exact_fit, ok_copy_src_fit);
REFUSE(copy_source_one_past, bad_copy_src_one_past, 0, TH_NIC_REFUSE_RANGE);
REFUSE(copy_source_wraps, bad_copy_src_wrap, 0, TH_NIC_REFUSE_RANGE);
ACCEPT(copy_destination_exact_fit, ok_copy_dst_fit);
REFUSE(copy_destination_one_past, bad_copy_dst_one_past, 0, TH_NIC_REFUSE_RANGE);
ACCEPT(copy_whole_region, ok_copy_whole);
REFUSE(copy_length_one_past_region, bad_copy_len_one_past, 0, TH_NIC_REFUSE_RANGE);
REFUSE(copy_length_wraps, bad_copy_len_wrap, 0, TH_NIC_REFUSE_RANGE);
REFUSE(copy_destination_alone_one_past, bad_copy_dst_only_past, 0, TH_NIC_REFUSE_RANGE);
REFUSE(inline_local_offset_wraps, bad_inline_local_wrap, 0, TH_NIC_REFUSE_RANGE);
REFUSE(inline_length_255, bad_inline_len255, 0, TH_NIC_REFUSE_INLINE);
ACCEPT(inline_remote_range_ends_at_u64_max, ok_inline_remote_end_max);
REFUSE(inline_remote_range_one_past_u64_max, bad_inline_remote_one_past, 0, TH_NIC_REFUSE_ADDRESS);
ACCEPT(inline_remote_last_node_and_vport, ok_inline_remote_last_vport);
REFUSE(inline_remote_vport_out_of_range, bad_inline_remote_vport, 0, TH_NIC_REFUSE_ADDRESS);
REFUSE(inline_remote_counter_out_of_range, bad_inline_remote_ct_range, 0, TH_NIC_REFUSE_COUNTER);
ACCEPT(reduce_destination_exact_fit, ok_reduce_dst_fit);
REFUSE(reduce_destination_one_element_past, bad_reduce_dst_one_past, 0, TH_NIC_REFUSE_RANGE);
REFUSE(reduce_destination_wraps, bad_reduce_dst_wrap, 0, TH_NIC_REFUSE_RANGE);
REFUSE(reduce_destination_count_one_past, bad_reduce_dst_count_past, 0, TH_NIC_REFUSE_RANGE);
ACCEPT(reduce_source_exact_fit, ok_reduce_src_fit);
REFUSE(reduce_source_one_element_past, bad_reduce_src_one_past, 0, TH_NIC_REFUSE_RANGE);
REFUSE(reduce_source_wraps, bad_reduce_src_wrap, 0, TH_NIC_REFUSE_RANGE);
REFUSE(reduce_seventh_source_one_element_past, bad_reduce_last_src_past, 0, TH_NIC_REFUSE_RANGE);
ACCEPT(reduce_source_ends_where_destination_begins, ok_reduce_src_ends_at_dst);
REFUSE(reduce_source_one_element_into_destination, bad_reduce_src_one_into_dst, 0, TH_NIC_REFUSE_OVERLAP);
ACCEPT(reduce_source_begins_where_destination_ends, ok_reduce_src_starts_at_dst_end);
REFUSE(reduce_source_begins_one_element_before_destination_end, bad_reduce_src_one_before_dst_end, 0, TH_NIC_REFUSE_OVERLAP);
ACCEPT(reduce_int8_whole_region, ok_reduce_int8_whole);
REFUSE(reduce_int8_one_element_past, bad_reduce_int8_one_past, 0, TH_NIC_REFUSE_RANGE);
ACCEPT(reduce_uint16_whole_region, ok_reduce_uint16_whole);
REFUSE(reduce_uint16_one_element_past, bad_reduce_uint16_one_past, 0, TH_NIC_REFUSE_RANGE);
ACCEPT(reduce_float32_whole_region, ok_reduce_float32_whole);
REFUSE(reduce_float32_one_element_past, bad_reduce_float32_one_past, 0, TH_NIC_REFUSE_RANGE);
ACCEPT(reduce_int64_whole_region, ok_reduce_int64_whole);
REFUSE(reduce_int64_one_element_past, bad_reduce_int64_one_past, 0, TH_NIC_REFUSE_RANGE);
ACCEPT(reduce_float64_whole_region, ok_reduce_float64_whole);
REFUSE(reduce_float64_one_element_past, bad_reduce_float64_one_past, 0, TH_NIC_REFUSE_RANGE);
ACCEPT(reduce_one_source, ok_reduce_one_source);
ACCEPT(reduce_strided_exact_fit, ok_strided_fit);
REFUSE(reduce_strided_one_element_past, bad_strided_one_past, 0, TH_NIC_REFUSE_RANGE);
REFUSE(reduce_strided_offset_plus_stride_wraps, bad_strided_sum_wrap, 0, TH_NIC_REFUSE_RANGE);
REFUSE(reduce_strided_third_offset_set, bad_strided_off2, 0, TH_NIC_REFUSE_RESERVED);
ACCEPT(reduce_strided_seven_sources, ok_strided_seven);
REFUSE(reduce_strided_eight_sources, bad_strided_eight, 0, TH_NIC_REFUSE_ALU);
ACCEPT(reduce_strided_accumulate_six, ok_strided_acc_six);
REFUSE(reduce_strided_accumulate_seven, bad_strided_acc_seven, 0, TH_NIC_REFUSE_ALU);
REFUSE(trigger_counter_ffff, bad_trig_ct_ffff, 0, TH_NIC_REFUSE_TRIGGER);
ACCEPT(completion_counter_last, ok_comp_ct_last);
REFUSE(completion_counter_ffff, bad_comp_ct_ffff, 0, TH_NIC_REFUSE_COUNTER);
ACCEPT(counter_inc_last, ok_ct_inc_last);
ACCEPT(counter_set_last, ok_ct_set_last);
REFUSE(counter_set_out_of_range, bad_ct_set_range, 0, TH_NIC_REFUSE_COUNTER);
ACCEPT(rearm_stride_one, ok_rearm_stride_one);
ACCEPT(rearm_stride_u64_max, ok_rearm_stride_max);
ACCEPT(rearm_ends_max_length_chain, ok_rearm_max_chain);
REFUSE(rearm_past_max_length_chain, bad_rearm_past_max_chain, BAD_CHAIN - 1, TH_NIC_REFUSE_CHAIN);
