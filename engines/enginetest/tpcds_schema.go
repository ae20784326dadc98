package enginetest

import "strings"

// tpcdsSchema is the TPC-DS schema (specification version 2 and later),
// each table's columns as name:kind, kinds as TPCDSTable documents them.
// The 17 dimension tables come first, then the 7 fact tables.
var tpcdsSchema = []struct{ name, cols string }{
	{"call_center", `cc_call_center_sk:i cc_call_center_id:t cc_rec_start_date:D cc_rec_end_date:D cc_closed_date_sk:i
		cc_open_date_sk:i cc_name:t cc_class:t cc_employees:i cc_sq_ft:i cc_hours:t cc_manager:t cc_mkt_id:i cc_mkt_class:t
		cc_mkt_desc:t cc_market_manager:t cc_division:i cc_division_name:t cc_company:i cc_company_name:t cc_street_number:t
		cc_street_name:t cc_street_type:t cc_suite_number:t cc_city:t cc_county:t cc_state:t cc_zip:t cc_country:t
		cc_gmt_offset:d cc_tax_percentage:d`},
	{"catalog_page", `cp_catalog_page_sk:i cp_catalog_page_id:t cp_start_date_sk:i cp_end_date_sk:i cp_department:t
		cp_catalog_number:i cp_catalog_page_number:i cp_description:t cp_type:t`},
	{"customer", `c_customer_sk:i c_customer_id:t c_current_cdemo_sk:i c_current_hdemo_sk:i c_current_addr_sk:i
		c_first_shipto_date_sk:i c_first_sales_date_sk:i c_salutation:t c_first_name:t c_last_name:t c_preferred_cust_flag:t
		c_birth_day:i c_birth_month:i c_birth_year:i c_birth_country:t c_login:t c_email_address:t c_last_review_date_sk:i`},
	{"customer_address", `ca_address_sk:i ca_address_id:t ca_street_number:t ca_street_name:t ca_street_type:t
		ca_suite_number:t ca_city:t ca_county:t ca_state:t ca_zip:t ca_country:t ca_gmt_offset:d ca_location_type:t`},
	{"customer_demographics", `cd_demo_sk:i cd_gender:t cd_marital_status:t cd_education_status:t cd_purchase_estimate:i
		cd_credit_rating:t cd_dep_count:i cd_dep_employed_count:i cd_dep_college_count:i`},
	{"date_dim", `d_date_sk:i d_date_id:t d_date:D d_month_seq:i d_week_seq:i d_quarter_seq:i d_year:i d_dow:i d_moy:i
		d_dom:i d_qoy:i d_fy_year:i d_fy_quarter_seq:i d_fy_week_seq:i d_day_name:t d_quarter_name:t d_holiday:t
		d_weekend:t d_following_holiday:t d_first_dom:i d_last_dom:i d_same_day_ly:i d_same_day_lq:i d_current_day:t
		d_current_week:t d_current_month:t d_current_quarter:t d_current_year:t`},
	{"household_demographics", `hd_demo_sk:i hd_income_band_sk:i hd_buy_potential:t hd_dep_count:i hd_vehicle_count:i`},
	{"income_band", `ib_income_band_sk:i ib_lower_bound:i ib_upper_bound:i`},
	{"item", `i_item_sk:i i_item_id:t i_rec_start_date:D i_rec_end_date:D i_item_desc:t i_current_price:d
		i_wholesale_cost:d i_brand_id:i i_brand:t i_class_id:i i_class:t i_category_id:i i_category:t i_manufact_id:i
		i_manufact:t i_size:t i_formulation:t i_color:t i_units:t i_container:t i_manager_id:i i_product_name:t`},
	{"promotion", `p_promo_sk:i p_promo_id:t p_start_date_sk:i p_end_date_sk:i p_item_sk:i p_cost:d p_response_target:i
		p_promo_name:t p_channel_dmail:t p_channel_email:t p_channel_catalog:t p_channel_tv:t p_channel_radio:t
		p_channel_press:t p_channel_event:t p_channel_demo:t p_channel_details:t p_purpose:t p_discount_active:t`},
	{"reason", `r_reason_sk:i r_reason_id:t r_reason_desc:t`},
	{"ship_mode", `sm_ship_mode_sk:i sm_ship_mode_id:t sm_type:t sm_code:t sm_carrier:t sm_contract:t`},
	{"store", `s_store_sk:i s_store_id:t s_rec_start_date:D s_rec_end_date:D s_closed_date_sk:i s_store_name:t
		s_number_employees:i s_floor_space:i s_hours:t s_manager:t s_market_id:i s_geography_class:t s_market_desc:t
		s_market_manager:t s_division_id:i s_division_name:t s_company_id:i s_company_name:t s_street_number:t
		s_street_name:t s_street_type:t s_suite_number:t s_city:t s_county:t s_state:t s_zip:t s_country:t
		s_gmt_offset:d s_tax_precentage:d`},
	{"time_dim", `t_time_sk:i t_time_id:t t_time:i t_hour:i t_minute:i t_second:i t_am_pm:t t_shift:t t_sub_shift:t
		t_meal_time:t`},
	{"warehouse", `w_warehouse_sk:i w_warehouse_id:t w_warehouse_name:t w_warehouse_sq_ft:i w_street_number:t
		w_street_name:t w_street_type:t w_suite_number:t w_city:t w_county:t w_state:t w_zip:t w_country:t w_gmt_offset:d`},
	{"web_page", `wp_web_page_sk:i wp_web_page_id:t wp_rec_start_date:D wp_rec_end_date:D wp_creation_date_sk:i
		wp_access_date_sk:i wp_autogen_flag:t wp_customer_sk:i wp_url:t wp_type:t wp_char_count:i wp_link_count:i
		wp_image_count:i wp_max_ad_count:i`},
	{"web_site", `web_site_sk:i web_site_id:t web_rec_start_date:D web_rec_end_date:D web_name:t web_open_date_sk:i
		web_close_date_sk:i web_class:t web_manager:t web_mkt_id:i web_mkt_class:t web_mkt_desc:t web_market_manager:t
		web_company_id:i web_company_name:t web_street_number:t web_street_name:t web_street_type:t web_suite_number:t
		web_city:t web_county:t web_state:t web_zip:t web_country:t web_gmt_offset:d web_tax_percentage:d`},
	{"catalog_returns", `cr_returned_date_sk:i cr_returned_time_sk:i cr_item_sk:i cr_refunded_customer_sk:i
		cr_refunded_cdemo_sk:i cr_refunded_hdemo_sk:i cr_refunded_addr_sk:i cr_returning_customer_sk:i
		cr_returning_cdemo_sk:i cr_returning_hdemo_sk:i cr_returning_addr_sk:i cr_call_center_sk:i cr_catalog_page_sk:i
		cr_ship_mode_sk:i cr_warehouse_sk:i cr_reason_sk:i cr_order_number:i cr_return_quantity:i cr_return_amount:d
		cr_return_tax:d cr_return_amt_inc_tax:d cr_fee:d cr_return_ship_cost:d cr_refunded_cash:d cr_reversed_charge:d
		cr_store_credit:d cr_net_loss:d`},
	{"catalog_sales", `cs_sold_date_sk:i cs_sold_time_sk:i cs_ship_date_sk:i cs_bill_customer_sk:i cs_bill_cdemo_sk:i
		cs_bill_hdemo_sk:i cs_bill_addr_sk:i cs_ship_customer_sk:i cs_ship_cdemo_sk:i cs_ship_hdemo_sk:i cs_ship_addr_sk:i
		cs_call_center_sk:i cs_catalog_page_sk:i cs_ship_mode_sk:i cs_warehouse_sk:i cs_item_sk:i cs_promo_sk:i
		cs_order_number:i cs_quantity:i cs_wholesale_cost:d cs_list_price:d cs_sales_price:d cs_ext_discount_amt:d
		cs_ext_sales_price:d cs_ext_wholesale_cost:d cs_ext_list_price:d cs_ext_tax:d cs_coupon_amt:d cs_ext_ship_cost:d
		cs_net_paid:d cs_net_paid_inc_tax:d cs_net_paid_inc_ship:d cs_net_paid_inc_ship_tax:d cs_net_profit:d`},
	{"inventory", `inv_date_sk:i inv_item_sk:i inv_warehouse_sk:i inv_quantity_on_hand:i`},
	{"store_returns", `sr_returned_date_sk:i sr_return_time_sk:i sr_item_sk:i sr_customer_sk:i sr_cdemo_sk:i
		sr_hdemo_sk:i sr_addr_sk:i sr_store_sk:i sr_reason_sk:i sr_ticket_number:i sr_return_quantity:i sr_return_amt:d
		sr_return_tax:d sr_return_amt_inc_tax:d sr_fee:d sr_return_ship_cost:d sr_refunded_cash:d sr_reversed_charge:d
		sr_store_credit:d sr_net_loss:d`},
	{"store_sales", `ss_sold_date_sk:i ss_sold_time_sk:i ss_item_sk:i ss_customer_sk:i ss_cdemo_sk:i ss_hdemo_sk:i
		ss_addr_sk:i ss_store_sk:i ss_promo_sk:i ss_ticket_number:i ss_quantity:i ss_wholesale_cost:d ss_list_price:d
		ss_sales_price:d ss_ext_discount_amt:d ss_ext_sales_price:d ss_ext_wholesale_cost:d ss_ext_list_price:d
		ss_ext_tax:d ss_coupon_amt:d ss_net_paid:d ss_net_paid_inc_tax:d ss_net_profit:d`},
	{"web_returns", `wr_returned_date_sk:i wr_returned_time_sk:i wr_item_sk:i wr_refunded_customer_sk:i
		wr_refunded_cdemo_sk:i wr_refunded_hdemo_sk:i wr_refunded_addr_sk:i wr_returning_customer_sk:i
		wr_returning_cdemo_sk:i wr_returning_hdemo_sk:i wr_returning_addr_sk:i wr_web_page_sk:i wr_reason_sk:i
		wr_order_number:i wr_return_quantity:i wr_return_amt:d wr_return_tax:d wr_return_amt_inc_tax:d wr_fee:d
		wr_return_ship_cost:d wr_refunded_cash:d wr_reversed_charge:d wr_account_credit:d wr_net_loss:d`},
	{"web_sales", `ws_sold_date_sk:i ws_sold_time_sk:i ws_ship_date_sk:i ws_item_sk:i ws_bill_customer_sk:i
		ws_bill_cdemo_sk:i ws_bill_hdemo_sk:i ws_bill_addr_sk:i ws_ship_customer_sk:i ws_ship_cdemo_sk:i
		ws_ship_hdemo_sk:i ws_ship_addr_sk:i ws_web_page_sk:i ws_web_site_sk:i ws_ship_mode_sk:i ws_warehouse_sk:i
		ws_promo_sk:i ws_order_number:i ws_quantity:i ws_wholesale_cost:d ws_list_price:d ws_sales_price:d
		ws_ext_discount_amt:d ws_ext_sales_price:d ws_ext_wholesale_cost:d ws_ext_list_price:d ws_ext_tax:d
		ws_coupon_amt:d ws_ext_ship_cost:d ws_net_paid:d ws_net_paid_inc_tax:d ws_net_paid_inc_ship:d
		ws_net_paid_inc_ship_tax:d ws_net_profit:d`},
}

// tpcdsColumns splits a schema entry into [name, kind] pairs.
func tpcdsColumns(cols string) [][2]string {
	var out [][2]string
	for _, f := range strings.Fields(cols) {
		name, kind, _ := strings.Cut(f, ":")
		out = append(out, [2]string{name, kind})
	}
	return out
}
